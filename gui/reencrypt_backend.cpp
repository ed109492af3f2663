// The re-encrypt dialog's default backend: core/reencrypt (crash-safe, resumable, batch).
#include <algorithm>
#include <filesystem>

#include "core/engine/engine_factory.h"
#include "core/io/file.h"
#include "core/reencrypt/batch.h"
#include "core/reencrypt/journal.h"
#include "core/util/error.h"
#include "gui/reencrypt_dialog.h"

namespace warpvol::gui {

ReencryptBackend default_reencrypt_backend() {
  using namespace reenc;
  ReencryptBackend b;
  b.has_journal = [](const std::string& volume) {
    std::error_code ec;
    return std::filesystem::exists(journal_path_for(volume), ec);
  };
  b.run = [](const ReencryptJob& job, const ProgressFn& progress, const CancelToken& cancel) {
    std::vector<VolumeRequest> reqs;
    for (const auto& v : job.volumes) {
      VolumeRequest r;
      r.path = v;
      r.open.credentials = job.credentials;
      r.no_hidden_volume = job.no_hidden_volume;
      if (job.hidden) {
        OpenOptions h;
        h.credentials = *job.hidden;
        h.slot = SlotKind::Hidden;
        r.hidden = h;
      }
      r.next.chain = job.new_chain;
      r.next.prf = job.new_prf;
      reqs.push_back(std::move(r));
    }
    BatchOptions opt;
    EngineOptions eo;  // the containers one at a time, each a file rewritten from one thread (engine_factory.h)
    const bool devices = std::any_of(reqs.begin(), reqs.end(), [](const auto& r) { return is_block_device(r.path); });
    eo.one_writer = devices ? OneWriterJob::None : OneWriterJob::Reencrypt;
    opt.job.engine = make_engine(eo);
    opt.job.cancel = cancel;
    opt.job.progress = progress;
    opt.job.policy = StartPolicy::StartOrResume;
    std::string failures;
    ErrorKind kind = ErrorKind::Io;
    for (const auto& item : run_batch(reqs, opt)) {
      if (item.status == ItemStatus::Done) continue;
      failures += item.path + ": " + std::string(item_status_name(item.status)) + " (" + item.reason + ")\n";
      kind = item.kind;
    }
    if (!failures.empty()) throw Error(kind, failures);
  };
  return b;
}

}  // namespace warpvol::gui
