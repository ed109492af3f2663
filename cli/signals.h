// SIGINT/SIGTERM handling for the CLI: the handler only sets a flag; long operations poll it through the
// Context's CancelToken and stop with Error(Interrupted) (exit code 6), removing partial output.
// SIGPIPE is ignored so a closed stdout turns into an EPIPE write error (exit code 3).
#pragma once

namespace warpvol::cli {

void install_signal_handlers();
bool interrupt_requested();

}  // namespace warpvol::cli
