// Creating volumes (docs/format-spec.md §8): normal VeraCrypt volumes in a new file or on a block device, hidden
// volumes inside an existing outer container (§2.3, §8.3), and imports of a raw image as the data area of a new volume.
//
// Data fill (normal volumes, unless quick): zeros encrypted under a random THROW-AWAY key of the same chain, as
// VeraCrypt does (§8.2 step 4). Not under the volume's own key: then the outer volume's unwritten space would
// decrypt to zeros and a hidden volume inside it (whose area would not) would stand out to anyone holding the
// outer password. The fill runs through the engine (GPU when the engine has one), double-buffered.
//
// Order of writes for a new file (all into a temporary file renamed into place at the end, see output_file.h):
//   primary header slot @0, fake hidden header slot @65536, data area, backup header slot @H-131072,
//   fake hidden backup slot @H-65536, fsync, rename, fsync folder.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/create/fill.h"
#include "core/create/output_file.h"
#include "core/engine/xts_engine.h"
#include "core/format/header_writer.h"
#include "core/format/open.h"

namespace warpvol {

enum class CreateType { Normal, Hidden };

struct CreateOptions {
  std::string path;
  CreateType type = CreateType::Normal;
  // Normal: the container size H (0 = the device's size for a block device). Hidden: the space S the hidden
  // volume takes at the end of the outer volume (VeraCrypt's --size for hidden volumes); data = S - 4096 (S < 2 MiB)
  // or S - 131072.
  uint64_t size = 0;
  bool size_max = false;  // --size max: the folder's free space (less a small margin), normal volumes in files
  ChainId chain = ChainId::Aes;
  PrfId prf = PrfId::Sha512;
  int pim = 0;
  Credentials credentials;  // password, keyfiles (pim above)
  uint32_t sector_size = 512;
  bool quick = false;  // skip the data fill
  bool force = false;  // replace an existing file / write to a block device
  std::string import_path;  // normal volumes: the data area is this file's content, zero-padded
  // Hidden volumes: credentials of the outer volume (optional). With them, the outer volume's filesystem is
  // checked so the hidden volume does not overwrite used space.
  std::optional<OpenOptions> outer;

  std::shared_ptr<XtsEngine> engine;  // required for fill and import
  FillOptions fill;                   // chunk size, progress, cancel token
  // Tests: wraps the file written to (e.g. a FailFile).
  std::function<std::unique_ptr<BlockFile>(std::unique_ptr<BlockFile>)> wrap_file;
  std::function<void(const std::string&)> notice;
};

// What the pre-flight decided; nothing has been written when it returns.
struct CreatePlan {
  uint64_t host_size = 0;    // H
  uint64_t data_offset = 0;  // start of the data area in the host
  uint64_t data_size = 0;
  uint64_t import_size = 0;  // bytes of the raw image
  uint64_t padding = 0;      // data_size - import_size (import)
  HiddenLayout hidden;       // hidden volumes
  KdfChoice kdf;
  bool device = false;
  TargetCheck target;
};

// Pre-flight: option values, size bounds (min 299008, max 1 PiB data), sector size, target (exists, folder
// writable, free space, block device), keyfiles readable, import source readable. Throws Error with one clear
// message; writes nothing.
CreatePlan plan_create(const CreateOptions& opt);

struct CreateResult {
  CreatePlan plan;
  std::string fill;  // what the data area holds: "zeros encrypted under a random throw-away key", ...
  double fill_seconds = 0;
  double reserve_seconds = 0;  // allocating a new file's space before the fill (AtomicFile::reserve)
};

// Creates the volume. A failure or an interrupt (opt.fill.cancel) removes a partially written new file (block
// devices and hidden volumes: the headers written so far stay; hidden creation touches only the hidden slots).
CreateResult create_volume(const CreateOptions& opt);

}  // namespace warpvol
