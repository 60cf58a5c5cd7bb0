// Umbrella header: the whole public hwrec API.
#pragma once

#include "hwrec/catalog.h"
#include "hwrec/config.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"
#include "hwrec/recommend.h"
#include "hwrec/status.h"
#include "hwrec/store.h"
#include "hwrec/version.h"
