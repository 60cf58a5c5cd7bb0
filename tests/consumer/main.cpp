// A scheduler host linking hwrec through its installed CMake package.
#include <hwrec/hwrec.h>

#include <cstdio>

int main() {
  hwrec::StoreOptions options;
  options.create_if_missing = true;
  auto store = hwrec::Store::Open(":memory:", options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  hwrec::HardwareProfile profile;
  profile.instance_type = "a2-highgpu-1g";
  auto id = hwrec::HardwareProfileId(profile, hwrec::ProfileIdVersion::kV2);
  std::printf("hwrec %s schema %d %s\n", hwrec::Version(), (*store)->schema_version(), id->c_str());
  return id.ok() ? 0 : 1;
}
