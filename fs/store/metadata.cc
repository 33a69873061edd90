#include "fs/store/metadata.h"

#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <type_traits>

namespace bb::fs {
namespace {

template <typename T>
void PutFixed(std::string* out, T v) {
  static_assert(std::is_integral_v<T>);
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(v);
  for (size_t i = 0; i < sizeof(T); ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

// Reads fixed-width little-endian integers, tracking whether the input ran out.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  T Get() {
    using U = std::make_unsigned_t<T>;
    if (in_.size() - pos_ < sizeof(T)) {
      short_ = true;
      return T{};
    }
    U u = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      u |= static_cast<U>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
    }
    pos_ += sizeof(T);
    return static_cast<T>(u);
  }
  std::string_view Bytes(size_t n) {
    if (in_.size() - pos_ < n) {
      short_ = true;
      return {};
    }
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool truncated() const { return short_; }
  size_t remaining() const { return in_.size() - pos_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  bool short_ = false;
};

// A version 6 value's extended attributes: at least one, names 1-255 bytes in strictly rising
// order, values within the limits.
Status DecodeXattrs(Reader& r, std::map<std::string, std::string>* out) {
  uint16_t count = r.Get<uint16_t>();
  if (count == 0 && !r.truncated()) return Status(EIO, "metadata value of version 6 has no extended attributes");
  for (uint16_t i = 0; i < count && !r.truncated(); ++i) {
    uint8_t name_len = r.Get<uint8_t>();
    std::string name(r.Bytes(name_len));
    uint32_t value_len = r.Get<uint32_t>();
    if (value_len > kMaxXattrValue) return Status(EIO, "metadata value has an extended attribute past 64 KiB");
    std::string_view value = r.Bytes(value_len);
    if (r.truncated()) break;
    if (name.empty() || (!out->empty() && out->rbegin()->first >= name)) {
      return Status(EIO, "metadata value has extended attribute names out of order or empty");
    }
    out->emplace_hint(out->end(), std::move(name), std::string(value));
  }
  if (XattrBytes(*out) > kMaxXattrBytes)
    return Status(EIO, "metadata value has more than 128 KiB of extended attributes");
  return Status::Ok();
}

// Number of components: "/" = 0, "/a/b" = 2.
uint16_t Depth(std::string_view path) {
  if (path == "/") return 0;
  return static_cast<uint16_t>(std::count(path.begin(), path.end(), '/'));
}

constexpr struct {
  FileType type;
  uint32_t bits;
} kTypeBits[] = {{FileType::kRegular, S_IFREG},    {FileType::kDirectory, S_IFDIR}, {FileType::kSymlink, S_IFLNK},
                 {FileType::kFifo, S_IFIFO},       {FileType::kSocket, S_IFSOCK},   {FileType::kCharDevice, S_IFCHR},
                 {FileType::kBlockDevice, S_IFBLK}};
static_assert(std::size(kTypeBits) == kMaxFileType, "one row per FileType");

}  // namespace

uint32_t FileTypeBits(FileType t) { return kTypeBits[static_cast<size_t>(t) - 1].bits; }

std::optional<FileType> FileTypeOf(uint32_t mode) {
  for (const auto& row : kTypeBits) {
    if ((mode & S_IFMT) == row.bits) return row.type;
  }
  return std::nullopt;
}

std::string EncodeMetadata(const Metadata& md) {
  std::string out;
  out.reserve(64 + md.symlink_target.size());
  PutFixed<uint8_t>(&out, md.xattrs.empty() ? kMetadataVersion : kMetadataVersionXattrs);
  PutFixed<uint8_t>(&out, static_cast<uint8_t>(md.type));
  PutFixed<uint32_t>(&out, md.mode);
  PutFixed<uint32_t>(&out, md.uid);
  PutFixed<uint32_t>(&out, md.gid);
  PutFixed<uint64_t>(&out, md.size);
  PutFixed<int64_t>(&out, md.atime_ns);
  PutFixed<int64_t>(&out, md.mtime_ns);
  PutFixed<int64_t>(&out, md.ctime_ns);
  PutFixed<uint64_t>(&out, md.file_id);
  PutFixed<uint32_t>(&out, md.chunk_size);
  PutFixed<uint32_t>(&out, md.data_location);
  PutFixed<uint64_t>(&out, md.rdev);
  PutFixed<uint32_t>(&out, md.subdirs);
  PutFixed<uint8_t>(&out, static_cast<uint8_t>(md.link));
  PutFixed<uint32_t>(&out, md.nlink);
  PutFixed<uint64_t>(&out, md.alloc_end);
  PutFixed<uint16_t>(&out, static_cast<uint16_t>(md.symlink_target.size()));
  out.append(md.symlink_target);
  if (md.xattrs.empty()) return out;
  PutFixed<uint16_t>(&out, static_cast<uint16_t>(md.xattrs.size()));
  for (const auto& [name, value] : md.xattrs) {
    PutFixed<uint8_t>(&out, static_cast<uint8_t>(name.size()));
    out.append(name);
    PutFixed<uint32_t>(&out, static_cast<uint32_t>(value.size()));
    out.append(value);
  }
  return out;
}

size_t XattrBytes(const std::map<std::string, std::string>& xattrs) {
  size_t bytes = 0;
  for (const auto& [name, value] : xattrs) bytes += name.size() + value.size();
  return bytes;
}

Result<Metadata> DecodeMetadata(std::string_view bytes) {
  Reader r(bytes);
  Metadata md;
  uint8_t version = r.Get<uint8_t>();
  if (r.truncated()) return Status(EIO, "metadata value is empty");
  if (version < 1 || version > kMetadataVersionXattrs) {
    return Status(EIO, "metadata value has unknown version " + std::to_string(version));
  }
  uint8_t type = r.Get<uint8_t>();
  if (type < 1 || type > kMaxFileType || (version == 1 && type > 3)) {
    return Status(EIO, "metadata value has unknown type " + std::to_string(type));
  }
  md.type = static_cast<FileType>(type);
  md.mode = r.Get<uint32_t>();
  md.uid = r.Get<uint32_t>();
  md.gid = r.Get<uint32_t>();
  md.size = r.Get<uint64_t>();
  md.atime_ns = r.Get<int64_t>();
  md.mtime_ns = r.Get<int64_t>();
  md.ctime_ns = r.Get<int64_t>();
  md.file_id = r.Get<uint64_t>();
  md.chunk_size = r.Get<uint32_t>();
  md.data_location = r.Get<uint32_t>();
  if (version >= 2) md.rdev = r.Get<uint64_t>();
  if (version >= 3) md.subdirs = r.Get<uint32_t>();
  if (version >= 4) {
    uint8_t role = r.Get<uint8_t>();
    if (role > kMaxLinkRole) return Status(EIO, "metadata value has unknown link role " + std::to_string(role));
    md.link = static_cast<LinkRole>(role);
    md.nlink = r.Get<uint32_t>();
  }
  if (version >= 5) md.alloc_end = r.Get<uint64_t>();
  uint16_t target_len = r.Get<uint16_t>();
  md.symlink_target = std::string(r.Bytes(target_len));
  if (version >= kMetadataVersionXattrs) BB_RETURN_IF_ERROR(DecodeXattrs(r, &md.xattrs));
  if (r.truncated()) return Status(EIO, "metadata value is truncated");
  if (r.remaining() != 0) return Status(EIO, "metadata value has trailing bytes");
  return md;
}

std::string LinkRecordPath(std::string_view root, uint64_t file_id) {
  std::string path(root == "/" ? std::string_view() : root);
  path.append("/\0links/", 8);
  path.append(std::to_string(file_id));
  return path;
}

std::string DentryKey(std::string_view path) {
  uint16_t depth = Depth(path);
  std::string key;
  key.reserve(3 + path.size());
  key.push_back('D');
  key.push_back(static_cast<char>(depth >> 8));
  key.push_back(static_cast<char>(depth & 0xff));
  key.append(path);
  return key;
}

std::string ChildKeyPrefix(std::string_view dir) {
  uint16_t depth = static_cast<uint16_t>(Depth(dir) + 1);
  std::string key;
  key.push_back('D');
  key.push_back(static_cast<char>(depth >> 8));
  key.push_back(static_cast<char>(depth & 0xff));
  if (dir != "/") key.append(dir);
  key.push_back('/');
  return key;
}

std::string_view ChildName(std::string_view key, std::string_view prefix) { return key.substr(prefix.size()); }

}  // namespace bb::fs
