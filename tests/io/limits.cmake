# The size limits of wick.h ("limits") at their edges: ranks, byte sizes, view spans, index ranges, parameter
# ranges on every device present, and dims past INT32_MAX / UINT32_MAX elements on a GPU with the memory.
# The refused huge allocations reach malloc: ASan must return NULL for them instead of aborting.
wick_io_test(test_limits ${CMAKE_CURRENT_SOURCE_DIR}/io/test_limits.c)
set_tests_properties(test_limits PROPERTIES TIMEOUT 300 ENVIRONMENT "ASAN_OPTIONS=allocator_may_return_null=1")
