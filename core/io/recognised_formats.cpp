#include "io/recognised_formats.h"

#include <algorithm>
#include <string_view>

#include "io/little_endian.h"

namespace blasscope::core {
namespace {

// How a checkpoint's tensors become a file BLAScope reads. `load` gets the state_dict
// (a dict of tensors); weights_only=True makes torch.load refuse pickled code.
std::string torch_conversion_hint(const std::string& load) {
  return "to inspect its tensors, convert them with PyTorch: sd = " + load +
         ", then safetensors.torch.save_file(sd, 'model.safetensors') or numpy.savez('model.npz', **{k: v.numpy() "
         "for k, v in sd.items()}) (bfloat16 tensors: v.float().numpy())";
}

constexpr char kTorchLoad[] = "torch.load(PATH, map_location='cpu', weights_only=True)";

// torch.save's legacy format pickles this number first (torch/serialization.py MAGIC_NUMBER,
// 0x1950a86a20f9469cfc6c): PROTO N, a FRAME from protocol 4 on, then LONG1 of 10 little-endian bytes.
constexpr char kLegacyTorchMagic[] = "\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";

bool is_legacy_torch(std::span<const std::byte> bytes) {
  if (bytes.size() < 2 || std::to_integer<unsigned>(bytes[0]) != 0x80) return false;
  std::size_t magic = 2;
  if (bytes.size() > 2 && std::to_integer<unsigned>(bytes[2]) == 0x95) magic += 9;  // FRAME and its 8-byte size
  return magic <= bytes.size() && has_prefix(bytes.subspan(magic), kLegacyTorchMagic, sizeof kLegacyTorchMagic - 1);
}

bool has_member(const std::vector<ZipMember>& members, std::string_view file_name) {
  return std::any_of(members.begin(), members.end(), [&](const ZipMember& m) {
    const std::string_view name = m.name;
    return name == file_name || (name.ends_with(file_name) && name.size() > file_name.size() &&
                                 name[name.size() - file_name.size() - 1] == '/');
  });
}

}  // namespace

std::optional<std::string> recognise_zip_format(const std::vector<ZipMember>& members) {
  if (!has_member(members, "data.pkl")) return std::nullopt;
  if (has_member(members, "constants.pkl")) {
    return "a TorchScript module (torch.jit.save zip format: code and weights) — not readable yet; " +
           torch_conversion_hint("torch.jit.load(PATH, map_location='cpu').state_dict()");
  }
  // open_tensor_file reads torch.save archives (io/pytorch_reader.h); one reaching here has its
  // data.pkl outside a single top folder, or was handed to the .npz reader directly.
  return "a PyTorch checkpoint (torch.save zip format) whose layout is not ARCHIVE/data.pkl + ARCHIVE/data/KEY, "
         "or read as .npz; " +
         torch_conversion_hint(kTorchLoad);
}

std::optional<std::string> recognise_pickle(std::span<const std::byte> bytes) {
  if (is_legacy_torch(bytes)) {
    return "a PyTorch checkpoint in the legacy torch.save format (before PyTorch 1.6, or "
           "_use_new_zipfile_serialization=False: a series of pickles, not a zip) — not read: BLAScope reads "
           "torch.save's zip format; convert it by loading and re-saving it with a current PyTorch: "
           "torch.save(" +
           std::string(kTorchLoad) + ", 'model.pt')";
  }
  if (bytes.size() < 2 || std::to_integer<unsigned>(bytes[0]) != 0x80) return std::nullopt;
  const unsigned protocol = std::to_integer<unsigned>(bytes[1]);
  if (protocol < 2 || protocol > 5) return std::nullopt;
  return "a Python pickle (protocol " + std::to_string(protocol) +
         ") — not read: BLAScope never unpickles, because loading a pickle runs code from the file; if it holds "
         "arrays, save them with numpy.save/numpy.savez or safetensors instead";
}

}  // namespace blasscope::core
