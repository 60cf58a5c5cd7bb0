"""Type stubs for hwrec, the in-process module over hwrec's C++ library."""

import os
from typing import IO, Any, Callable, Dict, Iterable, Literal, Optional, Sequence, Tuple, Union

__version__: str
__all__: list[str]

PathLike = Union[str, "os.PathLike[str]"]
# Where a store lives: a SQLite file path, or a PostgreSQL location (a
# "postgresql://user@host:port/db?..." URI in any case, or a libpq key=value
# string naming host, hostaddr, dbname or service; never shown with a secret).
StoreLocation = PathLike
Records = Union[PathLike, IO[str], Dict[str, Any], Iterable[Dict[str, Any]]]
Form = Literal["auto", "hwrec", "runner"]
Time = Union[None, float, int, str, Any]  # epoch seconds, RFC 3339 text or a datetime
Outcome = Literal["launched", "capacity_miss", "quota_exceeded", "config_error",
                  "permission_error", "workload_failure", "not_tried"]

class Error(Exception):
    code: str
    message: str

class InvalidArgumentError(Error, ValueError): ...
class NotFoundError(Error, LookupError): ...
class ConflictError(Error): ...
class SchemaMismatchError(Error): ...
class ReadOnlyError(Error): ...
class IoError(Error): ...
class InternalError(Error): ...
class ConcurrentUseError(Error): ...

class StoreStatus:
    path: str
    engine: str
    schema_version: int
    latest_schema_version: int
    hp_version: str
    journal_mode: str
    file_size_bytes: int
    wal_size_bytes: int
    tables: dict[str, int]
    opened: str
    immutable: bool
    def to_dict(self) -> dict[str, Any]: ...

class NodePool:
    node_pool_id: str
    site_id: str
    name: str
    hardware: dict[str, Any]
    gpu_model_known: bool
    def to_dict(self) -> dict[str, Any]: ...

class PoolReject:
    line: int
    node_pool_id: str
    field: str
    reason: str
    def to_dict(self) -> dict[str, Any]: ...

class PoolImportSummary:
    registered: int
    updated: int
    unchanged: int
    rejected: int
    rejects: list[PoolReject]
    warnings: list[PoolReject]  # registered, with a RunnerNodePool field ignored
    def to_dict(self) -> dict[str, Any]: ...

class FieldError:
    field: str
    reason: str
    def to_dict(self) -> dict[str, Any]: ...

class IngestReject:
    line: int
    execution_id: str
    field: str
    reason: str
    errors: list[FieldError]
    def to_dict(self) -> dict[str, Any]: ...

class IngestWarning:
    line: int
    execution_id: str
    field: str
    message: str
    def to_dict(self) -> dict[str, Any]: ...

class IngestSummary:
    accepted: int
    duplicates: int
    conflicts: int
    rejected: int
    profile_id_mismatches: int
    unresolved_hardware: int
    rejects: list[IngestReject]
    warnings: list[IngestWarning]
    conflict_execution_ids: list[str]
    def to_dict(self) -> dict[str, Any]: ...

class GpuPartition:
    gpu_config_id: str
    brand: str
    model: str
    mode: str
    memory_gb: float  # GiB (2^30 bytes): an A100 80GB holds 80
    compute_slices: int
    compute_fraction: float
    def to_dict(self) -> dict[str, Any]: ...

class FigureReason:
    source: str  # max_of_recent, percentile, average
    statistic: str
    statistic_value: float
    execution_id: Optional[str]  # max of last N: the execution that set the max
    finished_at: Optional[float]
    status: Optional[str]
    oom_factor: Optional[float]  # when that execution ran out of memory
    oom_applied_to: Optional[str]  # requested or observed
    oom_base: Optional[float]
    bucket_lower: Optional[float]  # percentiles: the bucket that holds it
    bucket_upper: Optional[float]
    share_at_or_below: Optional[float]
    margin: float
    with_margin: float
    rounding: str
    value: float
    text: str  # in words; memory in GiB (2^30 bytes)
    def to_dict(self) -> dict[str, Any]: ...

class Figure:
    kind: str
    value: Optional[float]
    provenance: str  # exact, gpu_model, instance_type, workload_any_hardware, none
    held_share: bool  # compute share learned from shares held: no GPU utilisation was reported
    learned_width: Optional[int]  # GPU memory: the GPUs held by the executions behind it
    samples: int
    confidence: float
    last_seen: Optional[float]
    lower: Optional[float]
    upper: Optional[float]
    statistic: str
    margin: float
    half_life_hours: float
    reason: Optional[FigureReason]  # only with recommend(..., explain=True)
    def to_dict(self) -> dict[str, Any]: ...

class Recommendation:
    workload: str
    hardware: dict[str, Any]
    as_of: float
    width: Optional[int]  # the GPUs held per execution gpu_memory_gb answers for; None: every width
    figures: dict[str, Figure]
    def to_dict(self) -> dict[str, Any]: ...

class EffectiveRequest:
    cpu_request_millicores: Optional[int]
    cpu_limit_millicores: Optional[int]
    memory_bytes: Optional[int]
    gpu_count: int
    gpu_config_id: Optional[str]
    gpu_memory_gb: Optional[float]  # GiB (2^30 bytes)
    gpu_compute_fraction: Optional[float]
    origins: dict[str, str]
    def to_dict(self) -> dict[str, Any]: ...

class PlacementNeeds:
    gpu_memory_gb: Optional[float]  # GiB (2^30 bytes)
    gpu_compute_fraction: Optional[float]
    def to_dict(self) -> dict[str, Any]: ...

class PlacementWaste:
    card: Optional[float]  # None: a pool of unknown size, or the GPU memory needed unknown
    compute_shortfall: Optional[float]  # None: the share needed on this card is unknown
    score: Optional[float]  # card + 2 x compute_shortfall; None when a term is unknown
    cpu: float
    memory: float
    gpu_left: Optional[float]  # cards' worth of GPU free on the node after; None: unknown
    fragmentation: Optional[float]  # fragmentation policy: unusable GPU added; else None
    def to_dict(self) -> dict[str, Any]: ...

class ExecutionShape:
    gpu_count: int
    gpu_count_source: str  # declared, retry_floor, history, none
    architectures: list[str]  # empty: any architecture
    architecture_source: str  # declared, history, none
    history_executions: int
    gpu_executions: int
    notes: list[str]  # where the GPU count and architectures came from; every candidate's begin with them
    def to_dict(self) -> dict[str, Any]: ...

class CandidateEvaluation:
    node_pool_id: str
    feasible: bool
    reason: str
    notes: list[str]
    request: EffectiveRequest
    needs: PlacementNeeds
    waste: PlacementWaste
    gpu_cards: list[int]  # with free_gpu_shares, when feasible: the cards (positions) it goes on
    def to_dict(self) -> dict[str, Any]: ...

class Placement:
    workload: str
    policy: str
    as_of: float
    shape: ExecutionShape
    chosen: Optional[str]
    chosen_request: Optional[EffectiveRequest]
    runner_allocation: Optional[dict[str, Any]]
    compute_fraction: Optional[float]
    placement_id: Optional[int]
    candidates: list[CandidateEvaluation]
    def to_payload(self) -> dict[str, Any]: ...
    def to_json(self, indent: Optional[int] = None) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

class PlacementRecord:
    id: int
    execution_id: str
    workload: str
    node_pool_id: str
    policy: str
    request: EffectiveRequest
    placed_at: float
    def to_dict(self) -> dict[str, Any]: ...

class RetryFloorOnPool:
    node_pool_id: str
    holds: bool  # a node holds the floor (True when the pool's size is unknown)
    reason: str
    def to_dict(self) -> dict[str, Any]: ...

class RetryFloor:
    execution_id: str
    workload: str
    status: str  # oom or gpu_oom
    retry_floor: dict[str, Any]  # memory_bytes or gpu_memory_gb, as execution["retry_floor"]
    reason: str
    pools: list[RetryFloorOnPool]
    def to_dict(self) -> dict[str, Any]: ...

class Rung:
    id: str
    backend: str  # gcp, slurm, runpod
    machine_type: str
    gpu_model: str
    width: int
    provisioning: Optional[str]  # SPOT, FLEX_START, STANDARD on GCP
    def to_dict(self) -> dict[str, Any]: ...

class PrunedRung:
    id: str
    reason: str
    def to_dict(self) -> dict[str, Any]: ...

class RouteAttempt:
    rung: Rung
    outcome: str
    detail: str
    def to_dict(self) -> dict[str, Any]: ...

class RouteResult:
    intent: str
    requested_width: int
    selected: Optional[Rung]
    realized_width: int
    degraded: bool
    stopped: bool
    counted_gcp_attempt: bool
    attempts: list[RouteAttempt]
    backend_selected_event: Optional[dict[str, Any]]
    def to_dict(self) -> dict[str, Any]: ...

class RoutePlan:
    intent: str
    requested_width: int  # as asked
    planned_width: int  # the widest machine width not above it: where the ladder starts
    sharded: bool  # the launch command shards; wide rungs need it
    length_hours: float
    length_class: str  # short, long, very_long
    ladder: list[Rung]
    pruned: list[PrunedRung]
    notes: list[str]
    no_fit: Optional[str]  # set, with an empty ladder, when no rung can hold one shard
    walk: Optional[RouteResult]
    def to_dict(self) -> dict[str, Any]: ...

class QuotaBlock:
    """A quota found exhausted today: rungs needing `gpus` or more of it are skipped."""
    gpu_model: str
    quota_class: str  # "preemptible" or "on_demand"
    gpus: int
    reason: str
    def to_dict(self) -> dict[str, Any]: ...

class RouterDayState:
    day: str
    gcp_attempts: int
    exhausted_quotas: list[str]
    quota_blocks: list[QuotaBlock]
    def to_dict(self) -> dict[str, Any]: ...

Candidate = Union[str, Dict[str, Any]]
Launcher = Callable[[Rung], Union[Outcome, str, Tuple[str, str]]]

class Store:
    """One store: one connection for one thread at a time.

    `path` is a file path (SQLite) or a PostgreSQL location (a postgresql://
    URI or libpq key=value); Store.path, reprs and error messages show it
    without its password or any other secret.
    """

    def __init__(self, path: StoreLocation, read_only: bool = False,
                 busy_timeout_ms: int = 5000) -> None: ...
    @staticmethod
    def init(path: StoreLocation) -> Store: ...
    def close(self) -> None: ...
    def __enter__(self) -> Store: ...
    def __exit__(self, *args: Any) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def closed(self) -> bool: ...
    @property
    def schema_version(self) -> int: ...
    def status(self) -> StoreStatus: ...
    def migrate(self) -> list[int]: ...
    def refresh(self) -> int: ...
    def reload(self) -> None: ...
    def register_pools(self, pools: Records, form: Form = "auto") -> PoolImportSummary: ...
    def pools(self) -> list[NodePool]: ...
    def ingest(self, records: Records, form: Form = "auto", strict: bool = False,
               batch_size: int = 10000, source: Optional[str] = None) -> IngestSummary: ...
    def recommend(self, image: str, pool: Optional[str] = None,
                  gpu_brand: Optional[str] = None, gpu_model: Optional[str] = None,
                  instance_type: Optional[str] = None, cpu_only: bool = False,
                  as_of: Time = None, explain: bool = False,
                  width: Optional[int] = None) -> Recommendation: ...
    def place(self, execution: Dict[str, Any], candidates: Sequence[Candidate],
              policy: Literal["best_fit", "first_fit", "fragmentation"] = "best_fit", as_of: Time = None,
              record: Optional[str] = None) -> Placement: ...
    def retry_floor(self, execution_id: str,
                    pools: Optional[Sequence[str]] = None) -> RetryFloor: ...
    def placements(self, execution_id: str) -> list[PlacementRecord]: ...
    def backtest(self, *, image: Optional[str] = None, gpu_model: Optional[str] = None,
                 instance_type: Optional[str] = None, figure: Optional[str] = None,
                 settings: Optional[Dict[str, Union[str, float, bool]]] = None,
                 presets: Sequence[str] = ()) -> Dict[str, Any]:
        """The backtest as `hwrec backtest --format json` gives it; over_provisioned
        is in over_provisioned_unit: GiB·h (memory, GPU memory; 2^30 bytes), core·h
        or card·h."""
    def route(self, intent: str, width: int, length: Union[str, float],
              simulate: Optional[Dict[str, Any]] = None, as_of: Time = None,
              sharded: bool = False) -> RoutePlan: ...
    def walk(self, plan: RoutePlan, launcher: Launcher, dry_run: bool = False,
             now: Time = None) -> RouteResult: ...
    def router_day(self, now: Time = None) -> RouterDayState: ...

def hardware_profile_id(profile: Dict[str, Any], version: int = 2) -> str:
    """The id of the profile as given (ingest fills a missing gpu_brand from the catalog first)."""
def canonical_profile(profile: Dict[str, Any], version: int = 2) -> str: ...
def catalog(search: str = "") -> list[GpuPartition]: ...
