"""hwrec: what GPU/CPU workloads used, and what they should request.

The in-process module for Python hosts such as the Runner and the width
router's dispatcher: a thin layer over hwrec's C++ library. A Store is one
connection for one thread at a time (a call made while another call on the same
Store is under way raises ConcurrentUseError); open one Store per thread.
Every call releases the GIL while hwrec works.
"""

from hwrec._hwrec import *  # noqa: F401,F403
from hwrec._hwrec import __version__  # noqa: F401

__all__ = [
    "CandidateEvaluation",
    "ConcurrentUseError",
    "ConflictError",
    "EffectiveRequest",
    "Error",
    "FieldError",
    "Figure",
    "GpuPartition",
    "IngestReject",
    "IngestSummary",
    "IngestWarning",
    "InternalError",
    "InvalidArgumentError",
    "IoError",
    "NodePool",
    "NotFoundError",
    "Placement",
    "PlacementNeeds",
    "PlacementRecord",
    "PlacementWaste",
    "PoolImportSummary",
    "PoolReject",
    "ReadOnlyError",
    "Recommendation",
    "RoutePlan",
    "RouteAttempt",
    "RouteResult",
    "RouterDayState",
    "Rung",
    "PrunedRung",
    "SchemaMismatchError",
    "Store",
    "StoreStatus",
    "canonical_profile",
    "catalog",
    "hardware_profile_id",
    "__version__",
]
