#include "core/job/export.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "core/io/atomic_file.h"
#include "core/io/device_target.h"
#include "core/io/fd_io.h"
#include "core/job/stream.h"
#include "core/util/error.h"
#include "core/volume/volume.h"

namespace warpvol {

ExportTarget::ExportTarget(std::string path, bool force, const struct stat* volume_st)
    : path_(std::move(path)), force_(force) {
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
      throw Error(ErrorKind::Usage,
                  path_ + ": is the volume itself" + (S_ISBLK(st.st_mode) ? " (a device backed by it)" : ""));
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

ExportTarget::~ExportTarget() {
  if (fd_ >= 0 && kind_ != Kind::Stdout) ::close(fd_);
}

std::string ExportTarget::display() const { return kind_ == Kind::Stdout ? std::string("standard output") : path_; }

void ExportTarget::create() {
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

void ExportTarget::write(const uint8_t* p, size_t n, const CancelToken& cancel) {
  if (kind_ == Kind::TempFile) throw Error(ErrorKind::Usage, "internal: export to a file writes by position");
  if (write_full(fd_, p, n, [&cancel] { return cancel(); }) < 0) {
    if (errno == EINTR && cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
    throw_errno("cannot write " + display());
  }
}

void ExportTarget::write_at(uint64_t off, const uint8_t* p, size_t n) { temp_->file().write_at(off, p, n); }

void ExportTarget::commit() {
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

void export_volume(Volume& vol, XtsEngine& engine, ExportTarget& out, const ExportOptions& opt) {
  const OpenedHeader& h = vol.header();
  const uint64_t total = vol.size();
  // The file+engine path reads ciphertext itself; system volumes go through Volume::read, which owns their special
  // cases (partially encrypted drives), one chunk at a time.
  const bool direct = h.slot != SlotKind::System && !(h.fields.flags & kFlagSystem) && total % kDataUnitSize == 0;
  StreamOptions so;
  so.chunk_bytes = opt.chunk_bytes;
  so.phase = "export";
  so.ordered = true;  // one writer, in order (see the top of export.h)
  if (!direct) so.workers = 1;
  so.cancel = opt.cancel;
  so.summary = opt.summary;
  so.progress = opt.progress;
  ChunkSource source;
  if (direct)
    source = [&vol, &h](uint64_t pos, uint8_t* buf, size_t len) { vol.file().read_at(h.data_offset + pos, buf, len); };
  else
    source = [&vol](uint64_t pos, uint8_t* buf, size_t len) { vol.read(pos, buf, len); };
  ChunkSink sink;
  if (out.to_file())
    sink = [&out](uint64_t pos, const uint8_t* buf, size_t len) { out.write_at(pos, buf, len); };
  else
    sink = [&out, &opt](uint64_t, const uint8_t* buf, size_t len) { out.write(buf, len, opt.cancel); };
  out.create();
  stream_area(total, source, direct ? &engine : nullptr, vol.key(), Direction::Decrypt, h.first_unit, sink, so);
  if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  out.commit();
}

}  // namespace warpvol
