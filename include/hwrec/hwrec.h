// Umbrella header: the whole public hwrec API.
#pragma once

#include "hwrec/catalog.h"
#include "hwrec/config.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/ingest.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"
#include "hwrec/placement.h"
#include "hwrec/recommend.h"
#include "hwrec/route_plan.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"
#include "hwrec/status.h"
#include "hwrec/store.h"
#include "hwrec/version.h"
