#include "core/reencrypt/legacy_advice.h"

#include "core/format/header.h"

namespace warpvol::reenc {

std::string v1_layout_advice(const std::string& path, const OpenedHeader& h, uint64_t H) {
  (void)H;
  const std::string what = h.legacy ? "a TrueCrypt volume from before 5.0 (" + h.legacy->name() + ")"
                                    : std::string("a TrueCrypt 5.x volume (V1 layout)");
  const std::string export_import = "warpvol export " + path + " IMAGE && warpvol import IMAGE NEW.hc --encryption "
                                    "aes (IMAGE is plaintext: delete it securely afterwards)";
  // A hidden V1 volume sits against the container's end, where VeraCrypt keeps its backup headers: it cannot move
  // in place. A normal one can: its data shifts from byte 512 to 131072 and the container grows (migrate.h).
  if (h.slot == SlotKind::LegacyHidden)
    return path + " holds " + what + " as a hidden volume: it cannot become a VeraCrypt volume in place, because its "
           "data ends 1536 bytes before the container's end, where VeraCrypt keeps its backup headers. Move its data "
           "into a new volume instead: " + export_import;
  return path + " is " + what + ": a new header cannot make it a VeraCrypt volume, because its data starts at byte " +
         std::to_string(h.data_offset) + ", where VeraCrypt keeps its headers. Migrate it in place (its data moves to "
         "byte 131072 and the container grows by 261632 bytes; a hidden volume inside it does not survive): warpvol "
         "reencrypt " + path + " --new-encryption aes --no-hidden-volume. Or move its data into a new volume: " +
         export_import;
}

}  // namespace warpvol::reenc
