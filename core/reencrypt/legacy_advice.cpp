#include "core/reencrypt/legacy_advice.h"

#include "core/format/header.h"

namespace warpvol::reenc {

std::string v1_layout_advice(const std::string& path, const OpenedHeader& h, uint64_t H) {
  const std::string what = h.legacy ? "a TrueCrypt volume from before 5.0 (" + h.legacy->name() + ")"
                                    : std::string("a TrueCrypt 5.x volume (V1 layout)");
  // A V2 container of the same size holds H - 262144 bytes of data; the V1 volume uses every byte after its
  // 512-byte header (or, hidden, sits against the end where VeraCrypt keeps its backup headers). Shifting the data
  // and growing the container in place is not done: the data is re-encrypted into a new container instead.
  std::string why;
  if (h.slot == SlotKind::LegacyHidden)
    why = "its hidden data ends 1536 bytes before the container's end, where VeraCrypt keeps its backup headers";
  else
    why = "its " + std::to_string(h.data_size) + " bytes of data start at byte " + std::to_string(h.data_offset) +
          ", but a VeraCrypt volume in the same " + std::to_string(H) + "-byte container holds only " +
          std::to_string(H > 2 * kHeaderGroupSize ? H - 2 * kHeaderGroupSize : 0) +
          " (its headers take 131072 bytes at each end)";
  return path + " is " + what + ": it cannot become a VeraCrypt volume in place, because " + why +
         ". Move its data into a new volume instead: warpvol export " + path + " IMAGE && warpvol import IMAGE " +
         "NEW.hc --encryption aes (IMAGE is plaintext: delete it securely afterwards)";
}

}  // namespace warpvol::reenc
