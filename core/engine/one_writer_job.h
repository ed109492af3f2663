#pragma once

namespace warpvol {

// A job bound by one regular file written from one thread (EngineOptions::one_writer): one file's writes serialise
// on its inode lock, which holds the job at a few GB/s. Each kind runs its own pipeline, so whether the GPU can
// help it differs from kind to kind (AutoEngine::one_writer_rate).
enum class OneWriterJob {
  None,          // not such a job: an export to a pipe or a device, a batch of several at once, a journal
  Fill,          // create and import: the unordered fill, encrypting into a new file
  ExportToFile,  // an export to a regular file: the ordered ring, decrypting into a new file
  Reencrypt,     // one container at a time rewritten in place, checksum resilience: decrypting, then encrypting
};

}  // namespace warpvol
