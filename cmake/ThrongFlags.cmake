# Compiler flags shared by every C target of the project.
add_library(throng_flags INTERFACE)
target_compile_options(throng_flags INTERFACE
  $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wshadow -Wstrict-prototypes -ffp-contract=off>)
# -ffp-contract=off always on the CPU: the CPU backend is the reference that
# other backends and rank counts are compared with, bit for bit.
if(THRONG_WERROR)
  target_compile_options(throng_flags INTERFACE $<$<COMPILE_LANGUAGE:C>:-Werror>)
endif()
if(THRONG_SANITIZE)
  target_compile_options(throng_flags INTERFACE
    $<$<COMPILE_LANGUAGE:C>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all>)
  target_link_options(throng_flags INTERFACE -fsanitize=address,undefined)
endif()
if(THRONG_STRICT_FP)
  target_compile_definitions(throng_flags INTERFACE THRONG_STRICT_FP=1)
endif()
