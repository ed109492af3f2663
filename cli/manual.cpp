#include "cli/manual.h"

#include <algorithm>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/exit_codes.h"
#include "core/crypto/chain.h"
#include "core/kdf/prf.h"

#ifndef WARPVOL_VERSION
#define WARPVOL_VERSION "unknown"
#endif

namespace warpvol::cli {
namespace {

using OptionList = std::vector<boost::shared_ptr<po::option_description>>;

// man(7) text: backslashes escaped, hyphens as \- (so they copy and search as ASCII), a leading '.' or '\'' made
// literal so that a description cannot start a request.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// "--name, -n" for a man page; the value placeholder is added separately.
std::string option_names(const po::option_description& o) {
  std::string s = "--" + o.long_name();
  const std::string shorty = o.canonical_display_name(po::command_line_style::allow_dash_for_short);
  if (shorty.size() == 2 && shorty[0] == '-' && shorty[1] != '-') s += ", " + shorty;
  return s;
}

bool takes_value(const po::option_description& o) { return o.semantic()->max_tokens() > 0; }

std::string value_placeholder(const po::option_description& o) {
  if (!takes_value(o)) return "";
  std::string p = o.format_parameter();  // " arg", " N (=0)", " cpu|gpu|auto (=auto)"
  while (!p.empty() && p.front() == ' ') p.erase(p.begin());
  return p;
}

void man_options(std::ostream& os, const OptionList& opts) {
  for (const auto& o : opts) {
    os << ".TP\n\\fB" << roff(option_names(*o)) << "\\fR";
    const std::string v = value_placeholder(*o);
    if (!v.empty()) os << " \\fI" << roff(v) << "\\fR";
    os << "\n" << roff(o->description()) << "\n";
  }
}

struct CommandOptions {
  po::options_description common{"common"}, own{"own"}, hidden{"hidden"}, creds{"creds"};
};

void collect(const Command& c, CommandOptions& o) {
  add_common_options(c, o.common);
  c.add_options(o.own, o.hidden);
  if (c.opens_volume()) add_credential_options(o.creds);
}

// Every option a command accepts on its command line, in help order.
OptionList all_options(const Command& c) {
  CommandOptions o;
  collect(c, o);
  OptionList all = o.own.options();
  for (const auto* d : {&o.creds, &o.common})
    all.insert(all.end(), d->options().begin(), d->options().end());
  return all;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::vector<std::string> chain_words() {
  std::vector<std::string> v;
  for (const auto& c : all_chains()) v.emplace_back(c.cli_name);
  return v;
}

std::vector<std::string> prf_words() {
  std::vector<std::string> v;
  for (const auto& p : all_prfs()) v.emplace_back(p.cli_name);
  return v;
}

// How the completion completes an option's value.
std::string value_kind(const po::option_description& o) {
  const std::string name = o.long_name();
  if (name.find("encryption") != std::string::npos) return "chains";
  if (name == "hash" || name.find("-hash") != std::string::npos) return "prfs";
  const std::string p = value_placeholder(o);
  const std::string word = p.substr(0, p.find(' '));
  if (word.find('|') != std::string::npos) {
    std::string words = word;
    std::replace(words.begin(), words.end(), '|', ' ');
    return "words:" + words;
  }
  if (name.find("dir") != std::string::npos || name == "mount-point") return "dirs";
  return "files";
}

}  // namespace

void write_man_page(std::ostream& os) {
  os << ".\\\" Generated from warpvol's own option tables (cli/manual.cpp); do not edit.\n"
     << ".TH WARPVOL 1 \"\" \"warpvol " WARPVOL_VERSION "\" \"User Commands\"\n"
     << ".SH NAME\nwarpvol \\- TrueCrypt/VeraCrypt\\-compatible volume tool\n"
     << ".SH SYNOPSIS\n.B warpvol\n[\\fB\\-\\-verbose\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR] [\\fIOPTIONS\\fR]\n.br\n"
     << ".B warpvol\n\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n"
     << ".SH DESCRIPTION\n"
     << "warpvol creates, opens, mounts and re\\-encrypts VeraCrypt and TrueCrypt containers, bit for bit compatible "
        "with VeraCrypt. XTS runs on every CPU core and, where a CUDA device is present, on the GPU.\n"
     << ".PP\nData goes to standard output only; messages, prompts and progress go to standard error. Every error is "
        "one line, \\fBwarpvol: \\fImessage\\fR, and with \\fB\\-\\-json\\fR also a JSON object "
        "{\"error\": ..., \"code\": \\fIN\\fR} on standard output.\n"
     << ".PP\nPasswords are read from the terminal with echo off, or with \\fB\\-\\-password\\-stdin\\fR / "
        "\\fB\\-\\-password\\-fd\\fR \\fIN\\fR; see \\fBCREDENTIAL OPTIONS\\fR.\n"
     << ".SH COMMANDS\n";
  for (const auto& c : commands()) {
    CommandOptions o;
    collect(*c, o);
    os << ".SS \"" << roff(c->name()) << "\"\n.B warpvol " << roff(c->usage()) << "\n.PP\n"
       << roff(c->summary()) << ".\n";
    if (!o.own.options().empty()) {
      os << ".PP\nOptions:\n.RS\n";
      man_options(os, o.own.options());
      os << ".RE\n";
    }
    std::vector<std::string> also;
    if (c->opens_volume()) also.push_back("the credential options");
    if (c->uses_engine()) also.push_back("\\fB\\-\\-engine\\fR");
    if (c->has_json()) also.push_back("\\fB\\-\\-json\\fR");
    if (!also.empty()) os << ".PP\nAlso takes " << join(also, ", ") << " (see below).\n";
    os << ".PP\nExample:\n.RS\n.nf\n" << roff(c->example()) << "\n.fi\n.RE\n";
  }

  os << ".SH CREDENTIAL OPTIONS\nEvery command that opens a volume takes these. Without narrowing options warpvol "
        "tries every header slot, format, PRF and chain.\n";
  po::options_description creds("creds");
  add_credential_options(creds);
  man_options(os, creds.options());

  os << ".SH GENERAL OPTIONS\n";
  // The union of the per-command general options (--engine and --json only where a command takes them).
  OptionList general;
  std::set<std::string> seen;
  for (const auto& c : commands()) {
    po::options_description d("d");
    add_common_options(*c, d);
    for (const auto& o : d.options())
      if (seen.insert(o->long_name()).second) general.push_back(o);
  }
  man_options(os, general);
  os << ".TP\n\\fB\\-\\-version\\fR, \\fB\\-V\\fR\nprint the version and exit (before a command)\n";

  os << ".SH EXIT STATUS\n";
  for (const auto& e : exit_code_table())
    os << ".TP\n.B " << e.code << "\n" << roff(std::string(e.name)) << ": " << roff(std::string(e.meaning)) << "\n";

  os << ".SH ALGORITHMS\nEncryption chains (\\fB\\-\\-encryption\\fR): " << roff(join(chain_words(), ", "))
     << ".\n.PP\nPRFs (\\fB\\-\\-hash\\fR): " << roff(join(prf_words(), ", ")) << ".\n";

  os << ".SH ENVIRONMENT\n"
     << ".TP\n.B WARPVOL_CPU_PATH\n\\fBportable\\fR, \\fBaesni\\fR, \\fBavx2\\fR or \\fBavx512\\fR: use at most this "
        "CPU instruction\\-set path.\n"
     << ".TP\n.B WARPVOL_MOUNTD\nthe FUSE program to start for \\fBmount\\fR (default: \\fBwarpvol\\-mountd\\fR next "
        "to warpvol, then \\fI../libexec/warpvol/\\fR, then \\fBPATH\\fR).\n"
     << ".TP\n.B WARPVOL_RUNTIME_DIR\nwhere the mount registry lives (default: \\fI/run/warpvol\\fR for root, "
        "\\fI$XDG_RUNTIME_DIR/warpvol\\fR otherwise).\n"
     << ".TP\n.B WARPVOL_MEDIA_DIR\nwhere mount points are made when none is given (default: "
        "\\fI/media/warpvol\\fR for root).\n"
     << ".TP\n.B WARPVOL_GPU_AGENT\n\\fBoff\\fR: do not use a running \\fBgpu\\-agent\\fR.\n"
     << ".TP\n.B WARPVOL_GPU_AGENT_SOCKET\nthe \\fBgpu\\-agent\\fR's socket (default: "
        "\\fI$XDG_RUNTIME_DIR/warpvol/gpu\\-agent.sock\\fR, else \\fI/tmp/warpvol\\-UID/gpu\\-agent.sock\\fR).\n"
     << ".TP\n.B XDG_CACHE_HOME\n\\fIwarpvol/crossover.json\\fR below it holds what \\fBbenchmark \\-\\-calibrate\\fR "
        "measured for \\fB\\-\\-engine auto\\fR: the crossover sizes per chain, and the CPU engine's rates that a job "
        "bound by one writer reads in place of its probe.\n"
     << ".SH SEE ALSO\n.BR warpvol\\-gui (1),\n.BR veracrypt (1),\n.BR cryptsetup (8)\n";
}

void write_gui_man_page(std::ostream& os) {
  os << ".\\\" Generated by cli/manual.cpp; do not edit.\n"
     << ".TH WARPVOL\\-GUI 1 \"\" \"warpvol " WARPVOL_VERSION "\" \"User Commands\"\n"
     << ".SH NAME\nwarpvol\\-gui \\- desktop front end of warpvol (Qt 6)\n"
     << ".SH SYNOPSIS\n.B warpvol\\-gui\n[\\fIVOLUME\\fR]\n"
     << ".SH DESCRIPTION\nThe window VeraCrypt users know: mount slots, mount and dismount, create a volume with a "
        "wizard, change passwords and keyfiles, back up and restore headers, re\\-encrypt, and benchmark the "
        "engines. It uses the same library as \\fBwarpvol\\fR(1) and never passes secrets on a command line.\n"
     << ".PP\nWith \\fIVOLUME\\fR, the path box is filled with it. Only one instance runs per user: a second start "
        "raises the first window (and hands it \\fIVOLUME\\fR).\n"
     << ".PP\nA normal user mounts through udisks2 over D\\-Bus (loop device and filesystem mount); root mounts "
        "directly. The standard Qt options (\\fB\\-platform\\fR, \\fB\\-style\\fR, ...) are accepted.\n"
     << ".SH FILES\n.TP\n.I $XDG_CONFIG_HOME/warpvol/warpvol.conf\nsettings and history.\n"
     << ".SH SEE ALSO\n.BR warpvol (1)\n";
}

void write_bash_completion(std::ostream& os) {
  os << "# bash completion for warpvol. Generated from its option tables (cli/manual.cpp); do not edit.\n"
     << "_warpvol_values() {  # KIND CUR\n"
     << "  case \"$1\" in\n"
     << "    chains) COMPREPLY=($(compgen -W '" << join(chain_words(), " ") << "' -- \"$2\")) ;;\n"
     << "    prfs) COMPREPLY=($(compgen -W '" << join(prf_words(), " ") << "' -- \"$2\")) ;;\n"
     << "    words:*) COMPREPLY=($(compgen -W \"${1#words:}\" -- \"$2\")) ;;\n"
     << "    dirs) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$2\")) ;;\n"
     << "    *) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$2\")) ;;\n"
     << "  esac\n}\n\n"
     << "_warpvol() {\n"
     << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd='' i\n"
     << "  local commands='";
  std::vector<std::string> names;
  for (const auto& c : commands()) names.push_back(c->name());
  names.push_back("help");
  os << join(names, " ") << "'\n"
     << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
     << "    case ${COMP_WORDS[i]} in\n"
     << "      --engine) ((i++)) ;;\n"
     << "      -*) ;;\n"
     << "      *) cmd=${COMP_WORDS[i]}; break ;;\n"
     << "    esac\n  done\n"
     << "  if [[ -z $cmd ]]; then\n"
     << "    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--help --version --verbose' -- \"$cur\"));\n"
     << "    else COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\")); fi\n"
     << "    return\n  fi\n"
     << "  local opts='' valued=''\n"
     << "  case $cmd in\n"
     << "    help) COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\")); return ;;\n";
  for (const auto& c : commands()) {
    std::vector<std::string> opts, valued;
    for (const auto& o : all_options(*c)) {
      opts.push_back("--" + o->long_name());
      const std::string shorty = o->canonical_display_name(po::command_line_style::allow_dash_for_short);
      const bool has_short = shorty.size() == 2 && shorty[0] == '-' && shorty[1] != '-';
      if (has_short) opts.push_back(shorty);
      if (takes_value(*o)) {
        valued.push_back("--" + o->long_name() + "=" + value_kind(*o));
        if (has_short) valued.push_back(shorty + "=" + value_kind(*o));
      }
    }
    // The value kinds can hold spaces (enumerated words), so the table is one entry per line.
    os << "    " << c->name() << ")\n      opts='" << join(opts, " ") << "'\n      valued='";
    for (const auto& v : valued) {
      std::string line = v;
      std::replace(line.begin(), line.end(), ' ', ',');
      os << line << " ";
    }
    os << "' ;;\n";
  }
  os << "  esac\n"
     << "  local opt=$prev val=$cur\n"
     // bash splits \"--hash=sh\" at '=' (COMP_WORDBREAKS) into --hash, =, sh; without that, it stays one word.
     << "  if [[ $cur == = ]]; then opt=$prev; val='';\n"
     << "  elif [[ $prev == = ]]; then opt=${COMP_WORDS[COMP_CWORD-2]};\n"
     << "  elif [[ $cur == --*=* ]]; then opt=${cur%%=*}; val=${cur#*=}; fi\n"
     << "  local entry kind=''\n"
     << "  for entry in $valued; do\n"
     << "    if [[ ${entry%%=*} == \"$opt\" ]]; then kind=${entry#*=}; kind=${kind//,/ }; break; fi\n"
     << "  done\n"
     << "  if [[ -n $kind && ( $opt == \"$prev\" || $prev == = || $cur == = || $cur == --*=* ) ]]; then\n"
     << "    _warpvol_values \"$kind\" \"$val\"\n"
     << "    return\n  fi\n"
     << "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return; fi\n"
     << "  _warpvol_values files \"$cur\"\n"
     << "}\n"
     << "complete -F _warpvol warpvol\n";
}

}  // namespace warpvol::cli
