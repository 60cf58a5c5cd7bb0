# Warnings and sanitizers as INTERFACE targets: strict when hwrec is the top
# level project, quiet when it is consumed by another build.
add_library(hwrec_warnings INTERFACE)
target_compile_options(hwrec_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wnull-dereference
  -Wimplicit-fallthrough)
if(HWREC_WARNINGS_AS_ERRORS)
  target_compile_options(hwrec_warnings INTERFACE -Werror)
endif()

add_library(hwrec_sanitizers INTERFACE)
if(HWREC_SANITIZE)
  target_compile_options(hwrec_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(hwrec_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
if(HWREC_SANITIZE_THREAD)
  if(HWREC_SANITIZE)
    message(FATAL_ERROR "HWREC_SANITIZE_THREAD and HWREC_SANITIZE cannot be combined")
  endif()
  target_compile_options(hwrec_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(hwrec_sanitizers INTERFACE -fsanitize=thread)
endif()
