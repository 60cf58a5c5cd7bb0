// The hwrec._hwrec extension: hwrec's public C++ API for Python hosts (the
// Runner, the width router's dispatcher), in-process. The binding converts
// values and adds no logic of its own.
#include <pybind11/stl.h>

#include "binding.h"
#include "hwrec/catalog.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/remedy.h"
#include "hwrec/version.h"

namespace hwrec::python {

namespace {

HardwareProfile ReadProfile(const py::handle& profile) {
  if (!py::isinstance<py::dict>(profile)) throw py::type_error("profile: expected a dict");
  const std::string json = ToJson(profile, "profile");
  Result<HardwareProfile> parsed = ParseHardwareProfile(json);
  if (!parsed.ok()) {  // its messages that name no field begin with "profile"
    const std::string& why = parsed.status().message();
    ThrowStatus(Status::InvalidArgument(why.rfind("profile", 0) == 0 ? why : "profile: " + why));
  }
  return std::move(parsed).value();
}

ProfileIdVersion VersionOf(int version) {
  if (version == 1) return ProfileIdVersion::kV1;
  if (version == 2) return ProfileIdVersion::kV2;
  ThrowStatus(Status::InvalidArgument("version: " + std::to_string(version) +
                                      " is not a hardware profile id version: use 1 or 2"));
}

std::vector<GpuPartition> Catalog(const std::string& search) {
  py::gil_scoped_release release;
  StoreOptions options;
  options.create_if_missing = true;
  std::unique_ptr<Store> store = Unwrap(Store::Open(":memory:", options));
  const GpuCatalog catalog = Unwrap(GpuCatalog::Load(*store));
  return catalog.Search(search);
}

}  // namespace

void RegisterFunctions(py::module_& m) {
  m.def(
      "hardware_profile_id",
      [](const py::object& profile, int version) {
        return Unwrap(HardwareProfileId(ReadProfile(profile), VersionOf(version)));
      },
      py::arg("profile"), py::arg("version") = 2,
      "The hp:v1 / hp:v2 id of a profile dict (instance_type, architecture, cpu_millicores, "
      "memory_bytes, gpu_count, gpu_mode, gpu_total, gpu_brand, gpu_model; absent = null), "
      "as given: ingest and `hwrec hardware-id` first fill a missing gpu_brand from the "
      "catalog, so give the brand with the model.");
  m.def(
      "canonical_profile",
      [](const py::object& profile, int version) {
        return Unwrap(CanonicalProfile(ReadProfile(profile), VersionOf(version)));
      },
      py::arg("profile"), py::arg("version") = 2, "The canonical JSON array the id hashes.");
  m.def("catalog", &Catalog, py::arg("search") = "",
        "The GPU partitions this build ships whose id, brand, model or mode match every "
        "word of `search` (all of them when empty).");
  m.attr("__version__") = Version();
  // Every remedy in each host's words, for the tests that check them.
  m.def("_remedies", []() {
    py::list out;
    for (const Remedy remedy : kRemedies) {
      out.append(py::make_tuple(std::string(ToString(remedy)),
                                RemedyText(remedy, RemedyHost::kCli, "STORE"),
                                RemedyText(remedy, RemedyHost::kPython, "STORE"),
                                RemedyText(remedy, RemedyHost::kCpp, "STORE")));
    }
    return out;
  });
}

}  // namespace hwrec::python

PYBIND11_MODULE(_hwrec, m) {
  namespace hp = hwrec::python;
  m.doc() = "hwrec: what GPU/CPU workloads used, and what they should request.";
  // hwrec's messages name Python calls, not CLI commands, as their remedies.
  hwrec::SetRemedyHost(hwrec::RemedyHost::kPython);
  hp::RegisterErrors(m);
  hp::RegisterStoreValues(m);
  hp::RegisterPlacementValues(m);
  hp::RegisterRouteValues(m);
  hp::RegisterAdminValues(m);
  hp::RegisterBacktestValues(m);
  hp::RegisterStore(m);
  hp::RegisterFunctions(m);
  hp::RegisterAdminFunctions(m);
  hp::argument_errors::GuardArgumentErrors(m);
}
