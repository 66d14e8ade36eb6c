# mancala_store: durable storage (SQLite) and the game archive (JSON and text), a static library
# of its own so that its unit tests and the benchmark link it without the network code. The
# server links it too. Included from tests/CMakeLists.txt (and later server/CMakeLists.txt),
# guarded by if(NOT TARGET mancala_store).
find_package(PkgConfig REQUIRED)
# Reuse the imported targets when another file already made them.
if(NOT TARGET PkgConfig::SQLITE)
  pkg_check_modules(SQLITE REQUIRED IMPORTED_TARGET sqlite3)
endif()
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()

add_library(mancala_store STATIC
  ${CMAKE_CURRENT_LIST_DIR}/srv_store.c
  ${CMAKE_CURRENT_LIST_DIR}/srv_archive.c
)
target_include_directories(mancala_store PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(mancala_store PUBLIC mancala_engine PkgConfig::SQLITE PkgConfig::JANSSON)

# The storage benchmark (not a test): bin/store-bench. Run it from a Release build.
add_executable(store-bench ${PROJECT_SOURCE_DIR}/bench/store_bench.c)
target_link_libraries(store-bench PRIVATE mancala_store)
