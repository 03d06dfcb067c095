# Included by packages/{driver,cudnn-sys}/CMakeLists.txt when BARACUDA_GLIBC_BASELINE is ON
# (the prebuilt packages, scripts/native/build-prebuilt.sh): see glibc-baseline.cc for why.
# Expects BARACUDA_GLIBC_TARGET, the addon target, and must come after its link options.
target_sources(${BARACUDA_GLIBC_TARGET} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/glibc-baseline.cc)
foreach(symbol dlopen dlsym dlclose dlerror dladdr pthread_once __pthread_key_create stat)
  target_link_options(${BARACUDA_GLIBC_TARGET} PRIVATE "LINKER:--wrap=${symbol}")
endforeach()
# Old glibc keeps the dl* and pthread_* definitions in these two; newer ones keep stubs.
target_link_options(${BARACUDA_GLIBC_TARGET} PRIVATE
  "LINKER:--push-state,--no-as-needed" "-l:libdl.so.2" "-l:libpthread.so.0" "LINKER:--pop-state")
# A static libgcc unwinder calls _dl_find_object (2.35); libgcc_s.so.1 is on every glibc system
# and keeps the lookup on the running system's side.
get_target_property(baracuda_link_options ${BARACUDA_GLIBC_TARGET} LINK_OPTIONS)
if(baracuda_link_options)
  list(REMOVE_ITEM baracuda_link_options -static-libgcc)
  set_target_properties(${BARACUDA_GLIBC_TARGET} PROPERTIES LINK_OPTIONS "${baracuda_link_options}")
endif()
