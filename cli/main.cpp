// The warpvol executable. Everything else lives in warpvol_cli (cli/*.cpp) so the tests can link it.
#include "cli/app.h"

#ifdef WARPVOL_HAVE_GPU
#include "gpu/gpu_engine.h"
#endif

int main(int argc, char** argv) {
#ifdef WARPVOL_HAVE_GPU
  warpvol::gpu::register_engine();
#endif
  return warpvol::cli::run_main(argc, argv);
}
