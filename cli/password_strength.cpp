#include "cli/password_strength.h"

#include <unistd.h>

#include <ostream>
#include <string>

#include "core/util/error.h"

namespace warpvol::cli {

void check_new_password_strength(const Context& ctx, const Credentials& c, bool confirm_on_terminal) {
  std::string warning;
  if (c.password.empty())
    warning = "the new password is EMPTY: the keyfiles alone will open the volume";
  else if (c.password.size() < kRecommendedPasswordBytes && c.keyfiles.empty())
    warning = "passwords shorter than 20 characters are easy to guess (VeraCrypt warns too)";
  if (warning.empty()) return;
  ctx.message("warning: " + warning);
  if (!confirm_on_terminal || !::isatty(STDIN_FILENO)) return;
  ctx.err << "Use it anyway? [y/N] " << std::flush;
  std::string answer;
  char ch;
  while (::read(STDIN_FILENO, &ch, 1) == 1 && ch != '\n') answer += ch;
  if (answer != "y" && answer != "Y" && answer != "yes")
    throw Error(ErrorKind::Usage, "not confirmed: nothing was changed");
}

}  // namespace warpvol::cli
