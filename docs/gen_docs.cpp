// warpvol-docgen OUTDIR: writes warpvol.1, warpvol-gui.1 and the bash completion script `warpvol` into OUTDIR
// from the program's own tables (cli/manual.cpp). Run by the build; not installed.
#include <fstream>
#include <iostream>

#include "cli/manual.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: warpvol-docgen OUTDIR\n";
    return 1;
  }
  const std::string dir = argv[1];
  struct Out {
    const char* name;
    void (*write)(std::ostream&);
  };
  for (const Out& o : {Out{"warpvol.1", warpvol::cli::write_man_page},
                       Out{"warpvol-gui.1", warpvol::cli::write_gui_man_page},
                       Out{"warpvol.bash-completion", warpvol::cli::write_bash_completion}}) {
    std::ofstream f(dir + "/" + o.name);
    o.write(f);
    f.close();
    if (!f) {
      std::cerr << "warpvol-docgen: cannot write " << dir << "/" << o.name << "\n";
      return 1;
    }
  }
  return 0;
}
