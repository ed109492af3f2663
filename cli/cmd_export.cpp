// warpvol export VOLUME OUT: write the whole decrypted data area to OUT ('-' = stdout).
//
// Data path: core/job/stream.h (several workers read chunks with positioned reads, the engine decrypts them in its
// own buffers, pinned on the GPU engine). OUT takes the chunks in order from one thread, whatever it is: a file's
// writes serialise on its inode lock, and writers waiting for it spin on the cores the readers and the engine need
// (core/io/file.h, BlockFile::parallel_writes).
// A regular-file OUT is written through AtomicFile (core/io/atomic_file.h), so a failure or an interrupt leaves
// no OUT behind.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <vector>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/progress.h"
#include "core/engine/engine_factory.h"
#include "core/job/stream.h"
#include "core/io/atomic_file.h"
#include "core/io/device_target.h"
#include "core/io/fd_io.h"
#include "core/util/error.h"
#include "core/util/secure.h"
#include "core/volume/volume.h"

namespace warpvol::cli {
namespace {

// Where the plaintext goes: stdout, a device/FIFO written in place, or a temporary file renamed on commit().
class Output {
 public:
  // Checks only; nothing is created yet (a wrong password must not leave files behind).
  Output(std::string path, bool force, const struct stat* volume_st) : path_(std::move(path)), force_(force) {
    if (path_ == "-") {
      if (::isatty(STDOUT_FILENO))
        throw Error(ErrorKind::Usage, "refusing to write decrypted data to a terminal (redirect stdout or give OUT)");
      kind_ = Kind::Stdout;
      return;
    }
    if (path_.empty()) throw Error(ErrorKind::Usage, "empty output path");
    struct stat st;
    if (::stat(path_.c_str(), &st) == 0) {
      if (volume_st && output_is_container(path_, st, *volume_st))
        throw Error(ErrorKind::Usage, path_ + ": is the volume itself" +
                                          (S_ISBLK(st.st_mode) ? " (a device backed by it)" : ""));
      if (S_ISBLK(st.st_mode) && !force_)  // as create: a device's content is destroyed only when asked
        throw Error(ErrorKind::Busy, path_ + ": is a block device; its content would be destroyed (use --force)");
      if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::Usage, path_ + ": is a directory (give a file name)");
      if (S_ISREG(st.st_mode)) {
        if (!force_) throw Error(ErrorKind::Busy, path_ + ": file exists (use --force to overwrite)");
        kind_ = Kind::TempFile;
      } else {
        kind_ = Kind::Direct;  // block/character device or FIFO: written in place
      }
    } else if (errno == ENOENT) {
      kind_ = Kind::TempFile;
      std::filesystem::path dir = std::filesystem::path(path_).parent_path();
      if (dir.empty()) dir = ".";
      struct stat dst;
      if (::stat(dir.c_str(), &dst) != 0) throw_errno(path_ + ": cannot use folder " + dir.string());
      if (!S_ISDIR(dst.st_mode)) throw Error(ErrorKind::Io, path_ + ": " + dir.string() + " is not a folder");
    } else {
      throw_errno(path_);
    }
  }

  ~Output() {
    if (fd_ >= 0 && kind_ != Kind::Stdout) ::close(fd_);
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  void create() {
    switch (kind_) {
      case Kind::Stdout:
        fd_ = STDOUT_FILENO;
        return;
      case Kind::Direct:
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd_ < 0) throw_errno("cannot open " + path_);
        return;
      case Kind::TempFile:
        temp_ = std::make_unique<AtomicFile>(path_, force_);  // mode 0600: plaintext
        return;
    }
  }

  void write(const uint8_t* p, size_t n, const Context& ctx) {
    if (write_full(fd_, p, n, [&ctx] { return ctx.cancel(); }) < 0) {
      if (errno == EINTR) ctx.check_cancel();
      throw_errno("cannot write " + display());
    }
  }

  void write_at(uint64_t off, const uint8_t* p, size_t n) { temp_->file().write_at(off, p, n); }
  bool to_file() const { return kind_ == Kind::TempFile; }

  void commit() {
    if (kind_ == Kind::Stdout) return;
    if (kind_ == Kind::TempFile) {
      temp_->commit();
      return;
    }
    (void)::fsync(fd_);  // a device's or a FIFO's: best effort
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno("cannot write " + display());
  }

  std::string display() const { return kind_ == Kind::Stdout ? std::string("standard output") : path_; }

 private:
  enum class Kind { Stdout, Direct, TempFile };
  std::string path_;
  bool force_;
  Kind kind_ = Kind::TempFile;
  int fd_ = -1;
  std::unique_ptr<AtomicFile> temp_;
};

// What export takes from the command line besides the volume and its credentials.
struct ExportRequest {
  size_t chunk = 0;  // the stream's default (core/job/stream.h)
  EngineChoice choice = EngineChoice::Auto;
};

class ExportCommand final : public VolumeCommand<ExportRequest> {
 public:
  std::string name() const override { return "export"; }
  std::string summary() const override {
    return "Write the decrypted data area (a raw filesystem image) to OUT, or to stdout with '-'";
  }
  std::string usage() const override { return "export VOLUME OUT [--engine cpu|gpu|auto] [--progress-json] [credentials]"; }
  std::string example() const override {
    return "warpvol export secret.hc image.raw --password-stdin < pw.txt   (then: mdir -i image.raw ::)";
  }
  bool uses_engine() const override { return true; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("progress-json", "progress as JSON lines on stderr (phase, bytes, speed, ETA)")
        ("quiet,q", "no progress bar on a terminal")
        ("force,f", "replace OUT if it exists; needed to write to a block device")
        ("chunk-size", po::value<std::string>()->value_name("N"),
         "bytes per engine request (default 8M, 4M on the GPU; multiple of 512, at least 64K)");
    hidden.add_options()("volume", po::value<std::string>(), "volume")("out", po::value<std::string>(), "out");
  }
  void add_positionals(po::positional_options_description& pos) const override {
    pos.add("volume", 1).add("out", 1);
  }

  std::vector<std::string> required_positionals() const override { return {"volume", "out"}; }

  ExportRequest parse_request(Context&, const po::variables_map& vm, const std::string&) const override {
    ExportRequest r;
    if (vm.count("chunk-size")) {
      uint64_t c = parse_size(vm["chunk-size"].as<std::string>());
      if (c < 65536 || c % kDataUnitSize || c > (uint64_t(1) << 30))
        throw Error(ErrorKind::Usage, "--chunk-size must be a multiple of 512 between 64K and 1G");
      r.chunk = size_t(c);
    }
    r.choice = engine_choice_from(vm);
    return r;
  }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> file, ExportRequest& request) const override {
    const std::string out_path = vm["out"].as<std::string>();
    // Everything that can be checked without the password first.
    struct stat vst;
    const bool have_vst = ::stat(path.c_str(), &vst) == 0;
    Output out(out_path, vm.count("force") > 0, have_vst ? &vst : nullptr);

    OpenOptions opt = open_options_from(vm, path, ctx);
    OpenedHeader header = open_header(*file, opt);
    EngineOptions eo;
    eo.choice = request.choice;
    eo.verbose = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    if (!header.legacy) eo.chains = {header.chain};
    eo.one_writer = out.to_file();  // a regular file's positioned writes, from one thread at a time
    std::shared_ptr<XtsEngine> engine = make_engine(eo);
    ctx.verbose_line("engine " + engine->name() + ": " + engine->detail());
    Volume vol(std::move(file), std::move(header), engine);
    const OpenedHeader& h = vol.header();
    ctx.verbose_line("data area: " + std::to_string(h.data_size) + " bytes at offset " +
                     std::to_string(h.data_offset) + ", first data unit " + std::to_string(h.first_unit));

    out.create();
    ProgressRenderer progress(choose_progress_mode(vm.count("progress-json") > 0, vm.count("quiet") > 0), ctx.err);
    const auto t0 = std::chrono::steady_clock::now();
    copy_out(ctx, vol, *engine, out, request.chunk, progress);
    out.commit();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ctx.verbose_line("exported " + std::to_string(vol.size()) + " bytes to " + out.display() + " in " +
                     std::to_string(secs) + " s");
    return 0;
  }

 private:
  static void copy_out(const Context& ctx, Volume& vol, XtsEngine& engine, Output& out, size_t chunk,
                       ProgressRenderer& progress) {
    const OpenedHeader& h = vol.header();
    const uint64_t total = vol.size();
    // The file+engine path reads ciphertext itself; system volumes go through Volume::read, which owns their
    // special cases (partially encrypted drives), one chunk at a time.
    const bool direct = h.slot != SlotKind::System && !(h.fields.flags & kFlagSystem) && total % kDataUnitSize == 0;
    StreamOptions so;
    so.chunk_bytes = chunk;
    so.phase = "export";
    so.ordered = true;  // one writer, in order (see the top of this file)
    if (!direct) so.workers = 1;
    so.cancel = ctx.cancel;
    so.summary = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    so.progress = [&progress](const ProgressUpdate& u) {
      if (u.finished) progress.finish(u);
      else progress.update(u);
    };
    ChunkSource source;
    if (direct)
      source = [&vol, &h](uint64_t pos, uint8_t* buf, size_t len) { vol.file().read_at(h.data_offset + pos, buf, len); };
    else
      source = [&vol](uint64_t pos, uint8_t* buf, size_t len) { vol.read(pos, buf, len); };
    ChunkSink sink;
    if (out.to_file())
      sink = [&out](uint64_t pos, const uint8_t* buf, size_t len) { out.write_at(pos, buf, len); };
    else
      sink = [&out, &ctx](uint64_t, const uint8_t* buf, size_t len) { out.write(buf, len, ctx); };
    stream_area(total, source, direct ? &engine : nullptr, vol.key(), Direction::Decrypt, h.first_unit, sink, so);
    ctx.check_cancel();
  }
};

}  // namespace

std::unique_ptr<Command> make_export_command() { return std::make_unique<ExportCommand>(); }

}  // namespace warpvol::cli
