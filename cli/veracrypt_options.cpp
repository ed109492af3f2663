#include "cli/veracrypt_options.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/util/error.h"

namespace warpvol::cli {
namespace {

// VeraCrypt's command options -> warpvol's commands.
const std::map<std::string, std::string>& command_options() {
  static const std::map<std::string, std::string> m = {
      {"--create", "create"},   {"-c", "create"},           {"--mount", "mount"},
      {"--dismount", "dismount"}, {"-d", "dismount"},       {"--list", "list"},
      {"-l", "list"},           {"--change", "change"},     {"-C", "change"},
      {"--backup-headers", "backup-headers"}, {"--restore-headers", "restore-headers"},
      {"--test", "test"},       {"--volume-properties", "info"}, {"--create-keyfile", "keyfile"},
  };
  return m;
}

std::vector<std::string> split_commas(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size()) {
    const size_t comma = v.find(',', start);
    const std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<std::string> translate_veracrypt_arguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  size_t i = 0;
  // The command as an option: the first argument that is not a global option.
  while (i < args.size() && (args[i] == "-v" || args[i] == "--verbose" || args[i] == "--text" || args[i] == "-t")) {
    if (args[i] != "--text" && args[i] != "-t") out.push_back(args[i]);
    ++i;
  }
  if (i < args.size()) {
    const auto& cmds = command_options();
    const std::string a = args[i];
    const std::string key = a.substr(0, a.find('='));
    if (auto it = cmds.find(key); it != cmds.end()) {
      out.push_back(it->second);
      if (it->second == "keyfile") out.push_back("create");
      if (key.size() < a.size()) out.push_back(a.substr(key.size() + 1));  // --create=VOLUME
      // VeraCrypt's -d without a volume dismounts everything.
      const bool more = i + 1 < args.size();
      if (it->second == "dismount" && (!more || args[i + 1][0] == '-') && key.size() == a.size()) out.push_back("--all");
      ++i;
    }
  }
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out.insert(out.end(), args.begin() + long(i), args.end());
      break;
    }
    const size_t eq = a.find('=');
    const std::string key = a.rfind("--", 0) == 0 ? a.substr(0, eq) : a;
    const bool inline_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
    // The option's value: after '=', or the next argument.
    auto value = [&]() -> std::optional<std::string> {
      if (inline_value) return a.substr(eq + 1);
      if (i + 1 < args.size()) return args[++i];
      return std::nullopt;
    };
    if (key == "--keyfiles" || key == "--new-keyfiles" || key == "--protection-keyfiles") {
      const std::string target = key == "--keyfiles" ? "--keyfile" : key == "--new-keyfiles" ? "--new-keyfile"
                                                                                             : "--protect-hidden-keyfile";
      auto v = value();
      if (!v) throw Error(ErrorKind::Usage, key + " needs a value (KEYFILE1[,KEYFILE2...])");
      const auto files = split_commas(*v);
      if (files.empty() && key == "--new-keyfiles") out.push_back("--no-keyfiles");
      for (const auto& f : files) {
        out.push_back(target);
        out.push_back(f);
      }
    } else if (key == "--volume-type") {
      auto v = value();
      if (!v) throw Error(ErrorKind::Usage, "--volume-type needs a value: normal or hidden");
      out.push_back("--type");
      out.push_back(lower(*v));
    } else if (key == "--protect-hidden" && (inline_value || (i + 1 < args.size() && (lower(args[i + 1]) == "yes" ||
                                                                                      lower(args[i + 1]) == "no")))) {
      const std::string v = lower(*value());
      if (v == "yes") out.push_back("--protect-hidden");
      else if (v != "no") throw Error(ErrorKind::Usage, "--protect-hidden takes yes or no");
    } else if (key == "--protection-pim") {
      auto v = value();
      if (!v) throw Error(ErrorKind::Usage, "--protection-pim needs a value");
      out.push_back("--protect-hidden-pim");
      out.push_back(*v);
    } else if (key == "--mount-options" || a == "-m") {
      auto v = value();
      if (!v) throw Error(ErrorKind::Usage, "--mount-options needs a value (ro, headerbak, system)");
      for (const auto& o : split_commas(lower(*v))) {
        if (o == "ro" || o == "readonly") out.push_back("--read-only");
        else if (o == "headerbak") out.push_back("--backup-header");
        else if (o == "system") out.push_back("--system");
        else
          throw Error(ErrorKind::Usage, "VeraCrypt's mount option '" + o + "' has no warpvol equivalent (warpvol takes "
                                        "ro/readonly as --read-only, headerbak as --backup-header, system as --system; "
                                        "filesystem options go to --fs-options)");
      }
    } else if (key == "--stdin") {
      out.push_back("--password-stdin");
    } else if (key == "--text" || key == "-t") {
      // VeraCrypt's text mode: warpvol's command line is always text.
    } else if (key == "--filesystem" && inline_value) {
      out.push_back("--filesystem=" + lower(a.substr(eq + 1)));  // VeraCrypt writes FAT, NTFS, ...
    } else {
      out.push_back(a);
    }
  }
  return out;
}

std::optional<std::string> warpvol_spelling_hint(const std::string& option) {
  static const std::map<std::string, std::string> hints = {
      {"--protection-password", "--protect-hidden-password-stdin or --protect-hidden-password-fd N (with "
                                "--protect-hidden)"},
      {"--protection-hash", "--hash (PRF of the outer volume; the hidden volume's is searched)"},
      {"--new-password-stdin", "--new-password-stdin (only `warpvol change` and `reencrypt` take it)"},
      {"--auto-mount", "warpvol mount VOLUME"},
      {"--load-preference-fav", "the GUI's favourites"},
      {"--use-dummy-sudo-password", "warpvol runs as the user; mounting needs root"},
      {"--explore", "warpvol mount prints the mount point"},
      {"--display-password", "nothing: warpvol never echoes passwords"},
      {"--hidden", "--hidden (only commands that open a volume take it)"},
      {"--truecrypt", "--truecrypt (only commands that open a volume take it)"},
      {"-k", "-k/--keyfile (only commands that open or create a volume take it)"},
  };
  const std::string key = option.substr(0, option.find('='));
  if (auto it = hints.find(key); it != hints.end()) return it->second;
  if (auto it = command_options().find(key); it != command_options().end())
    return "the command `warpvol " + it->second + "` (VeraCrypt's command options go first)";
  return std::nullopt;
}

}  // namespace warpvol::cli
