"""hwrec: what GPU/CPU workloads used, and what they should request.

The in-process module for Python hosts such as the Runner and the width
router's dispatcher: a thin layer over hwrec's C++ library. A Store is one
connection for one thread at a time (a call made while another call on the same
Store is under way raises ConcurrentUseError); open one Store per thread.
Every call releases the GIL while hwrec works.
"""

import os as _os
from typing import IO as _IO
from typing import Any as _Any
from typing import Callable as _Callable
from typing import Dict as _Dict
from typing import Iterable as _Iterable
from typing import Literal as _Literal
from typing import Tuple as _Tuple
from typing import Union as _Union

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

# The argument types hwrec's signatures name (__init__.pyi), for a caller's
# own annotations: `def launch(rung: hwrec.Rung) -> hwrec.Outcome`.
PathLike = _Union[str, _os.PathLike[str]]
StoreLocation = PathLike  # a file path or a PostgreSQL location
Records = _Union[PathLike, _IO[str], _Dict[str, _Any], _Iterable[_Dict[str, _Any]]]
# Literals of one value each: what the stubs' Literal["a", "b"] reads as.
Form = _Union[_Literal["auto"], _Literal["hwrec"], _Literal["runner"]]
Time = _Union[None, float, int, str, _Any]  # epoch seconds, RFC 3339 text or a datetime
Outcome = _Union[_Literal["launched"], _Literal["capacity_miss"], _Literal["quota_exceeded"],
                 _Literal["config_error"], _Literal["permission_error"],
                 _Literal["workload_failure"], _Literal["not_tried"]]
Candidate = _Union[str, _Dict[str, _Any]]  # a node_pool_id, or a candidate dict
Launcher = _Callable[[Rung], _Union[Outcome, str, _Tuple[str, str]]]  # noqa: F405

__all__ = [
    "Candidate",
    "Form",
    "Launcher",
    "Outcome",
    "PathLike",
    "Records",
    "StoreLocation",
    "Time",
    "BacktestPoint",
    "BacktestResult",
    "BacktestRun",
    "BacktestSeries",
    "BacktestTotals",
    "CandidateEvaluation",
    "ConcurrentUseError",
    "ConfigEntry",
    "ConflictError",
    "EffectiveRequest",
    "Error",
    "ExecutionShape",
    "FieldError",
    "Figure",
    "FigureReason",
    "FigureTransfer",
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
    "CatalogImportSummary",
    "CheckResult",
    "CopySummary",
    "LegacyMigrationRecord",
    "LegacyMigrationReport",
    "LegacyPlan",
    "LegacyPlanGroup",
    "QuarantineResolveSummary",
    "QuarantinedRow",
    "StoreCheckReport",
    "canonical_profile",
    "catalog",
    "check",
    "hardware_profile_id",
    "schema",
    "__version__",
]
