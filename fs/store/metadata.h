// Metadata: the value stored for every entry of the namespace, and the keys it is stored under.
//
// The namespace is flat (GekkoFS style): one key per absolute path inside the file system.
//
// Key (bytewise order is the order readdir needs; LevelDB's default comparator is used):
//   'D' | depth (uint16, big-endian) | absolute path
// where depth is the number of components ("/" = 0, "/a" = 1, "/a/b" = 2). All direct children
// of directory P (depth d) share the prefix 'D' | d+1 | P "/" (P "" for the root), so listing a
// directory is one ordered prefix scan that never visits grandchildren.
// System keys start with 'S' (for example the file-id allocator's reservation, the chunk-removal
// journal, and chunk 0 of small files: fs/store/chunk_store.h).
//
// Value, version 2 (all integers little-endian, fixed width; the format never depends on build
// flags):
//   u8  version (=2)        u8  type (1 regular, 2 directory, 3 symlink, 4 FIFO, 5 socket,
//                                     6 character device, 7 block device)
//   u32 mode (permission bits 07777)   u32 uid   u32 gid
//   u64 size   i64 atime_ns   i64 mtime_ns   i64 ctime_ns   (wall clock, ns since the epoch)
//   u64 file_id (stable id given at create; names chunks and the inode number)
//   u32 chunk_size   u32 data_location (node holding the data in the hybrid mode, or
//                                       0xffffffff for none)
//   u64 rdev (the device number of a device node; 0 for other types)
//   u32 subdirs (a directory's subdirectories; version 3 on)
//   u8  link role (0 an ordinary entry, 1 a name of a hard-linked file, 2 a link record)
//   u32 nlink (a link record's names; version 4 on, with the role)
//   u64 alloc_end (how far `fallocate` reserved space for the data, past the size or by a call
//                  that failed; 0 for none; version 5 on)
//   u16 target length | target bytes (symlink target; 0 for other types)
//   version 6 only, for an entry with extended attributes (5 is written for one without):
//   u16 count, then per attribute in name order: u8 name length | name | u32 value length | value
// Versions 1 to 4 are still read (1 has no rdev, 2 no subdirs, 3 no link fields, 4 no alloc_end:
// all 0), and
// rewritten in the current version the next time the entry is written.
//
// Hard links: a file's entry holds its attributes until it gets a second name. Then its
// attributes move to a link record, an entry at LinkRecordPath (the reserved name "\0links" below
// the workspace's root, which no listing shows and no file name can reach), and every name of
// the file becomes an entry of role kName: the same type and file id, attributes not used. Decoding rejects unknown
// versions, unknown types, and values that are short or have trailing bytes.
//
// Thread-safety: pure functions over values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "fs/base/status.h"

namespace bb::fs {

enum class FileType : uint8_t {
  kRegular = 1,
  kDirectory = 2,
  kSymlink = 3,
  kFifo = 4,
  kSocket = 5,
  kCharDevice = 6,
  kBlockDevice = 7,
};
inline constexpr uint8_t kMaxFileType = 7;
// The S_IF* bits of `t` (sys/stat.h), and the type of `mode`'s S_IF* bits (nullopt for none).
uint32_t FileTypeBits(FileType t);
std::optional<FileType> FileTypeOf(uint32_t mode);

inline constexpr uint8_t kMetadataVersion = 5;
inline constexpr uint8_t kMetadataVersionXattrs = 6;  // written for entries with extended attributes
// Extended attributes: a name of 1-255 bytes, a value of at most 64 KiB (the kernel's
// XATTR_SIZE_MAX), and at most 128 KiB of names and values together per file (ENOSPC past it, as
// ext4 gives when its inode is full), so that an entry stays far below an RPC's 1 MiB.
inline constexpr size_t kMaxXattrName = 255;
inline constexpr size_t kMaxXattrValue = 65536;
inline constexpr size_t kMaxXattrBytes = 131072;
inline constexpr uint32_t kNoNode = 0xffffffffu;
inline constexpr uint64_t kRootFileId = 1;  // also the FUSE root inode number

// What an entry is to a hard-linked file (see above).
enum class LinkRole : uint8_t {
  kNone = 0,    // an ordinary entry: its attributes are the file's
  kName = 1,    // one name of a linked file: the attributes are in the link record
  kRecord = 2,  // the link record: the file's attributes and `nlink`
};
inline constexpr uint8_t kMaxLinkRole = 2;

struct Metadata {
  FileType type = FileType::kRegular;
  uint32_t mode = 0644;  // permission bits only
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t size = 0;
  int64_t atime_ns = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t file_id = 0;
  uint32_t chunk_size = 0;
  uint32_t data_location = kNoNode;
  uint64_t rdev = 0;
  uint32_t subdirs = 0;  // a directory's subdirectories (st_nlink = 2 + subdirs); version 3 on
  LinkRole link = LinkRole::kNone;
  uint32_t nlink = 0;  // a link record's names (st_nlink); version 4 on
  // A regular file's chunks may lie past its size up to here (fallocate KEEP_SIZE, or one that
  // failed halfway); removal and truncation free them too. Only grows; version 5 on.
  uint64_t alloc_end = 0;
  std::string symlink_target;
  std::map<std::string, std::string> xattrs;  // extended attributes (name -> value); version 6

  bool operator==(const Metadata&) const = default;
};

// How far a regular file's chunks may reach: its size, or further where fallocate reserved space.
inline uint64_t DataExtent(const Metadata& md) { return md.size > md.alloc_end ? md.size : md.alloc_end; }

// Bytes of names and values of the extended attributes `xattrs` (held to kMaxXattrBytes).
size_t XattrBytes(const std::map<std::string, std::string>& xattrs);

std::string EncodeMetadata(const Metadata& md);
// Returns EIO with a description of what is wrong when `bytes` is not a valid value.
Result<Metadata> DecodeMetadata(std::string_view bytes);

// The path of the link record of file `file_id` in the workspace whose root is `root` ("/" outside
// any workspace).
std::string LinkRecordPath(std::string_view root, uint64_t file_id);

// REQUIRES: `path` is normalized (see fs/core/placement/path.h).
std::string DentryKey(std::string_view path);
// The prefix shared by the keys of all direct children of directory `dir`.
std::string ChildKeyPrefix(std::string_view dir);
// Name of the child whose key is `key`, given the prefix it was found under.
std::string_view ChildName(std::string_view key, std::string_view prefix);

}  // namespace bb::fs
