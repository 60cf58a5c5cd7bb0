// The shape of the execution to place (ResolveExecution, CompleteShape): its
// pins, its declared GPU count and architectures, and what its recent
// executions and its OOM-retry floor add where it declared nothing, with notes
// saying where each came from.
#include "placement/candidate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "hwrec/placement_input.h"
#include "hwrec/placement_result.h"
#include "placement/history.h"

namespace hwrec::internal {

namespace {

// The counts and sizes of `d` ("declared", "retry_floor") in the ranges the
// JSON and Python forms take: a C++ caller's go unchecked by them.
Status CheckDeclared(const DeclaredResources& d, std::string_view what) {
  const auto bad = [&](std::string_view field, const auto& value, std::string_view range) {
    return Status::InvalidArgument(fmt::format("{}.{} is {}: give {}", what, field, value, range));
  };
  if (d.gpu_count && *d.gpu_count < 0) return bad("gpu_count", *d.gpu_count, "0 or more");
  if (d.gpu_memory_gb && !(std::isfinite(*d.gpu_memory_gb) && *d.gpu_memory_gb > 0)) {
    return bad("gpu_memory_gb", *d.gpu_memory_gb, "GiB per GPU, more than 0");
  }
  if (d.gpu_compute_fraction && !(*d.gpu_compute_fraction > 0 && *d.gpu_compute_fraction <= 1)) {
    return bad("gpu_compute_fraction", *d.gpu_compute_fraction, "a share of one card, in (0, 1]");
  }
  if (d.cpu_millicores && *d.cpu_millicores <= 0) {
    return bad("cpu_millicores", *d.cpu_millicores, "more than 0");
  }
  if (d.memory_bytes && *d.memory_bytes <= 0) {
    return bad("memory_bytes", *d.memory_bytes, "more than 0");
  }
  return Status::Ok();
}

}  // namespace

Result<ExecutionFacts> ResolveExecution(const ExecutionToPlace& execution) {
  if (Status valid = CheckDeclared(execution.declared, "declared"); !valid.ok()) return valid;
  if (execution.retry_floor) {
    if (Status valid = CheckDeclared(*execution.retry_floor, "retry_floor"); !valid.ok()) {
      return valid;
    }
  }
  ExecutionFacts facts;
  facts.execution = &execution;
  const DeclaredResources& d = execution.declared;
  struct Pin {
    const char* field;
    bool* flag;
    bool has_value;
  };
  const Pin pins[] = {
      {"cpu_millicores", &facts.pin_cpu, d.cpu_millicores.has_value()},
      {"memory_bytes", &facts.pin_memory, d.memory_bytes.has_value()},
      {"gpu_memory_gb", &facts.pin_gpu_memory, d.gpu_memory_gb.has_value()},
      {"gpu_compute_fraction", &facts.pin_compute, d.gpu_compute_fraction.has_value()}};
  for (const std::string& field : d.pinned) {
    const auto pin = std::find_if(std::begin(pins), std::end(pins),
                                  [&](const Pin& p) { return field == p.field; });
    if (pin == std::end(pins)) {
      return Status::InvalidArgument(fmt::format(
          "pinned '{}' is not a figure that can be pinned: use cpu_millicores, memory_bytes, "
          "gpu_memory_gb or gpu_compute_fraction",
          field));
    }
    if (!pin->has_value) {
      return Status::InvalidArgument(
          fmt::format("pinned '{}' has no declared value: declare {} too", field, field));
    }
    *pin->flag = true;
  }
  ExecutionShape& shape = facts.shape;
  const bool declares_gpu = d.gpu_brand || d.gpu_model || d.gpu_memory_gb || d.gpu_compute_fraction;
  if (d.gpu_count || declares_gpu) {
    shape.gpu_count = d.gpu_count.value_or(1);
    shape.gpu_count_source = ShapeSource::kDeclared;
  }
  if (d.architecture) {
    shape.architectures = {*d.architecture};
    shape.architecture_source = ShapeSource::kDeclared;
  }
  return facts;
}

bool ShapeNeedsHistory(const ExecutionFacts& facts) {
  return facts.shape.gpu_count_source == ShapeSource::kNone ||
         facts.shape.architecture_source == ShapeSource::kNone;
}

namespace {

// "its last execution that ran", "its last 7 executions that ran".
std::string LastExecutions(std::int64_t n) {
  return n == 1 ? "its last execution that ran" : fmt::format("its last {} executions that ran", n);
}

// "its last execution that ran", "3 of its last 7 executions that ran".
std::string SomeOfLastExecutions(std::int64_t some, std::int64_t n) {
  return n == 1 ? LastExecutions(n) : fmt::format("{} of {}", some, LastExecutions(n));
}

// GPUs when at least half of the recent executions used them: as many as the
// most any of them held (gpu_count_held), or one when none said how many it
// held (hardware.gpu_count is the node's, never read as the execution's).
// Returns the note.
std::string GpuCountFromHistory(const WorkloadHistory& history, ExecutionFacts* facts) {
  ExecutionShape& shape = facts->shape;
  const bool uses_gpus = 2 * history.gpu_executions >= history.executions;
  shape.gpu_count = !uses_gpus ? 0 : history.held_executions > 0 ? history.most_gpus_held : 1;
  shape.gpu_count_source = ShapeSource::kHistory;
  std::string used;
  if (history.executions == 1) {
    used = history.gpu_executions == 1 ? "its last execution used GPUs"
                                       : "its last execution used no GPU";
  } else if (history.gpu_executions == 0) {
    used = fmt::format("none of {} used GPUs", LastExecutions(history.executions));
  } else {
    used = fmt::format("{} of {} used GPUs", history.gpu_executions,
                       LastExecutions(history.executions));
  }
  if (uses_gpus && history.held_executions > 0) {
    used += history.held_executions == 1
                ? fmt::format("; the one that said how many GPUs it held had {}",
                              history.most_gpus_held)
                : fmt::format("; the {} that said how many GPUs they held had at most {}",
                              history.held_executions, history.most_gpus_held);
  }
  return fmt::format("gpu_count {} from history: {}", shape.gpu_count, used);
}

// "architecture x86_64 from history: recorded by 3 of its last 5 executions
// that ran" (the others did not record theirs).
std::string ArchitectureFromHistory(const WorkloadHistory& history, ExecutionFacts* facts) {
  ExecutionShape& shape = facts->shape;
  shape.architectures = history.architectures;
  shape.architecture_source = ShapeSource::kHistory;
  for (const std::string& architecture : shape.architectures) {
    if (!facts->architecture_words.empty()) facts->architecture_words += ", ";
    facts->architecture_words += architecture;
  }
  facts->architecture_history_words =
      SomeOfLastExecutions(history.architecture_executions, history.executions);
  return fmt::format("{} {} from history: recorded by {}",
                     shape.architectures.size() == 1 ? "architecture" : "architectures",
                     facts->architecture_words, facts->architecture_history_words);
}

// A retry floor's gpu_count raises the count; GPU figures in a floor without
// one mean the execution ran out on a GPU: at least one, unless the author
// declared gpu_count 0, which wins. Returns the note, or "".
std::string GpuCountFromRetryFloor(const DeclaredResources& floor, ExecutionShape* shape) {
  const bool declared = shape->gpu_count_source == ShapeSource::kDeclared;
  if (floor.gpu_count) {
    if (*floor.gpu_count <= shape->gpu_count) return "";
    const std::int64_t before = shape->gpu_count;
    shape->gpu_count = *floor.gpu_count;
    shape->gpu_count_source = ShapeSource::kRetryFloor;
    return declared ? fmt::format("gpu_count {} from the retry floor, above the declared {}",
                                  shape->gpu_count, before)
                    : fmt::format("gpu_count {} from the retry floor", shape->gpu_count);
  }
  if (shape->gpu_count > 0 || !(floor.gpu_memory_gb || floor.gpu_compute_fraction)) return "";
  const char* fields = !floor.gpu_compute_fraction ? "gpu_memory_gb"
                       : !floor.gpu_memory_gb      ? "gpu_compute_fraction"
                                                   : "gpu_memory_gb and gpu_compute_fraction";
  if (declared) {
    return fmt::format("the retry floor's {} {} ignored: gpu_count 0 is declared", fields,
                       floor.gpu_memory_gb && floor.gpu_compute_fraction ? "are" : "is");
  }
  shape->gpu_count = 1;
  shape->gpu_count_source = ShapeSource::kRetryFloor;
  return fmt::format("gpu_count 1 from the retry floor: it sets {}", fields);
}

}  // namespace

// The shape's notes (every candidate's begin with them) say where what was not
// declared came from: the GPU count, the architectures, and (a count of 1 from
// history) how to ask for more; or that no execution in the window ran.
void CompleteShape(const WorkloadHistory& history, ExecutionFacts* facts) {
  ExecutionShape& shape = facts->shape;
  const ExecutionToPlace& execution = *facts->execution;
  std::string gpu_note;
  std::string architecture_note;
  if (ShapeNeedsHistory(*facts) && history.executions > 0) {
    shape.history_executions = history.executions;
    shape.gpu_executions = history.gpu_executions;
    if (shape.gpu_count_source == ShapeSource::kNone) {
      gpu_note = GpuCountFromHistory(history, facts);
    }
    if (shape.architecture_source == ShapeSource::kNone && !history.architectures.empty()) {
      architecture_note = ArchitectureFromHistory(history, facts);
    }
  }
  if (execution.retry_floor) {
    std::string floor_note = GpuCountFromRetryFloor(*execution.retry_floor, &shape);
    if (!floor_note.empty()) gpu_note = std::move(floor_note);
  }
  std::vector<std::string>& notes = shape.notes;
  if (ShapeNeedsHistory(*facts) && history.executions == 0 && history.passed_over > 0) {
    const bool count = shape.gpu_count_source == ShapeSource::kNone;
    const bool architecture = shape.architecture_source == ShapeSource::kNone;
    notes.push_back(fmt::format(
        "no execution that ran ({} failed/cancelled passed over): declare {}", history.passed_over,
        count && architecture ? "gpu_count and architecture"
        : count               ? "gpu_count"
                              : "architecture"));
  }
  for (std::string* note : {&gpu_note, &architecture_note}) {
    if (!note->empty()) notes.push_back(std::move(*note));
  }
  if (shape.gpu_count_source == ShapeSource::kHistory && shape.gpu_count == 1 &&
      history.held_executions == 0) {
    notes.emplace_back(
        "history asks for 1 GPU: none of its executions said how many GPUs it held "
        "(gpu_count_held; an observation's hardware.gpu_count is its node's): declare gpu_count "
        "when the execution uses more than one");
  }
}

}  // namespace hwrec::internal
