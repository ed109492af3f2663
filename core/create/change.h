// Header operations on existing volumes that keep the master keys (docs/format-spec.md §8.4): change credentials,
// back up and restore headers (VeraCrypt's 128 KiB external format, §2.7), convert TrueCrypt headers to
// VeraCrypt. The data area is never touched. All header writes go through header_writer.h.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/format/header_writer.h"
#include "core/format/open.h"
#include "core/io/file.h"

namespace warpvol {

// ---- change credentials ----
struct ChangeOptions {
  OpenOptions open;                  // current credentials (+ narrowing)
  Credentials new_credentials;       // new password, keyfiles, PIM
  std::optional<PrfId> new_prf;      // default: keep the current PRF
  FileWrapper wrap_file;             // tests
};
struct ChangeResult {
  OpenedHeader old_header;
  KdfChoice new_kdf;
  bool restored_primary = false;     // the primary did not decrypt; the rewrite repaired it from the backup
};
// Opens the volume with the current credentials, re-encrypts its header (normal or hidden, whichever opened)
// under the new ones with fresh salts, same fields and master keys, writing the embedded backup first and the
// primary second (header_writer.h rewrite_header_pair: fsync after each). TrueCrypt volumes stay TrueCrypt
// (use convert to upgrade). System-encryption and legacy (V1) volumes are refused.
ChangeResult change_credentials(const std::string& path, const ChangeOptions& opt);

// ---- external header backup (128 KiB) ----
constexpr size_t kBackupFileSize = 2 * kHeaderSlotSize;
struct BackupOptions {
  OpenOptions open;                    // opens the normal or the hidden volume
  std::optional<OpenOptions> hidden;   // optional: credentials of the hidden volume, to back up both
  bool force = false;                  // replace an existing backup file
  FileWrapper wrap_file;               // tests
};
struct BackupResult {
  SlotKind first_slot;                 // Normal or Hidden
  bool hidden_backed_up = false;       // the hidden slot holds a real header (else random data)
};
// Writes FILE: [0, 64 KiB) normal slot, [64 KiB, 128 KiB) hidden slot; each real header re-encrypted with a fresh
// salt (same KDF), the other slot a fake header under a random key; slot padding random. Mode 0600, atomic.
BackupResult backup_headers(const std::string& volume, const std::string& file, const BackupOptions& opt);

struct RestoreOptions {
  OpenOptions open;                // credentials of the header to restore
  std::string from_file;           // external backup; empty = the volume's embedded backup
  FileWrapper wrap_file;           // tests (wraps the volume)
};
struct RestoreResult {
  OpenedHeader header;             // the header that was restored (from the file / the embedded backup)
};
// Refuses (Error Auth) when no header in the source decrypts with the credentials; nothing is written then.
// External: the header (normal slot at 0 or hidden slot at 65536 of the file) is re-encrypted with fresh salts
// into the volume's primary and embedded backup (backup first, then primary). Embedded: re-encrypted into the
// primary first (the old backup stays intact until the primary is durable), then the backup.
RestoreResult restore_headers(const std::string& volume, const RestoreOptions& opt);

// ---- TrueCrypt -> VeraCrypt ----
struct ConvertOptions {
  OpenOptions open;                // TrueCrypt credentials (format forced to TrueCrypt)
  std::optional<PrfId> new_prf;    // default: keep the PRF when VeraCrypt 1.26 still has it
  int new_pim = 0;
  FileWrapper wrap_file;
};
struct ConvertResult {
  OpenedHeader old_header;
  KdfChoice new_kdf;
};
// Magic "VERA", required version 0x010b, header version 5, VeraCrypt iteration counts for the chosen PRF, same
// master keys and fields; backup first, then primary. Refuses (Error Format) what VeraCrypt 1.26 cannot open even
// after a header conversion: legacy (pre-6.0) layouts, system encryption, ciphers it dropped; for those the data
// must be re-encrypted. Refuses (Error Usage) RIPEMD-160/SHA-1 unless new_prf names a PRF VeraCrypt supports.
ConvertResult convert_to_veracrypt(const std::string& path, const ConvertOptions& opt);

// PRFs and chains VeraCrypt 1.26.27 can open for non-system volumes.
bool veracrypt_supports_prf(PrfId prf);
bool veracrypt_supports_chain(ChainId chain);

}  // namespace warpvol
