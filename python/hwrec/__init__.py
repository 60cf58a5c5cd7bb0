"""hwrec: what GPU/CPU workloads used, and what they should request.

The in-process module for Python hosts such as the Runner and the width
router's dispatcher: a thin layer over hwrec's C++ library. A Store is one
connection for one thread at a time (a call made while another call on the same
Store is under way raises ConcurrentUseError); open one Store per thread.
Every call releases the GIL while hwrec works.
"""

try:
    from hwrec._hwrec import *  # noqa: F401,F403
    from hwrec._hwrec import __version__  # noqa: F401
except ModuleNotFoundError as error:
    if error.name != "hwrec._hwrec":
        raise
    # Typically the source folder python/hwrec shadows the built package.
    raise ModuleNotFoundError(
        f"hwrec: its compiled part hwrec._hwrec is not beside {__file__}: build it "
        "(cmake --build build/dev --target hwrec_python) and put <build>/python on "
        "PYTHONPATH, or install hwrec (README, 'Using it from Python')",
        name=error.name) from error

__all__ = [
    "CandidateEvaluation",
    "ConcurrentUseError",
    "ConflictError",
    "EffectiveRequest",
    "Error",
    "ExecutionShape",
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
    "RetryFloor",
    "RetryFloorOnPool",
    "RoutePlan",
    "RouteAttempt",
    "RouteResult",
    "RouterDayState",
    "Rung",
    "PrunedRung",
    "QuotaBlock",
    "SchemaMismatchError",
    "Store",
    "StoreStatus",
    "canonical_profile",
    "catalog",
    "hardware_profile_id",
    "__version__",
]
