// Catch2 entry point for warpvol_tests (every .cpp under tests/ but fuzz/ links into this one binary).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
