// The pure and read-only parts of staging: the source tree, pieces, hashes, the manifest.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "tools/stage/stage.h"

namespace bb::stage {
namespace {

using json = nlohmann::json;

int64_t Ns(const struct timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

Kind KindOf(mode_t m) {
  if (S_ISREG(m)) return Kind::kFile;
  if (S_ISDIR(m)) return Kind::kDir;
  if (S_ISLNK(m)) return Kind::kSymlink;
  if (S_ISFIFO(m)) return Kind::kFifo;
  return Kind::kOther;
}

Result<Entry> StatEntry(const std::string& path, const std::string& rel) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return Status(errno, "cannot stat " + path);
  Entry e;
  e.rel = rel;
  e.kind = KindOf(st.st_mode);
  e.size = e.kind == Kind::kFile ? static_cast<uint64_t>(st.st_size) : 0;
  e.mode = st.st_mode & 07777;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  e.atime_ns = Ns(st.st_atim);
  e.mtime_ns = Ns(st.st_mtim);
  if (e.kind == Kind::kSymlink) {
    std::string buf(static_cast<size_t>(st.st_size) + 1, '\0');
    ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
    if (n < 0) return Status(errno, "cannot read the symlink " + path);
    e.target.assign(buf.data(), static_cast<size_t>(n));
  }
  return e;
}

Result<std::vector<std::string>> Names(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Status(errno, "cannot list " + dir);
  std::vector<std::string> names;
  while (struct dirent* de = ::readdir(d)) {
    std::string n = de->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status WalkInto(const std::string& root, const std::string& rel, std::vector<Entry>* out) {
  std::string path = rel.empty() ? root : root + "/" + rel;
  BB_ASSIGN_OR_RETURN(Entry e, StatEntry(path, rel));
  bool dir = e.kind == Kind::kDir;
  out->push_back(std::move(e));
  if (!dir) return Status::Ok();
  BB_ASSIGN_OR_RETURN(auto names, Names(path));
  for (const std::string& n : names) BB_RETURN_IF_ERROR(WalkInto(root, rel.empty() ? n : rel + "/" + n, out));
  return Status::Ok();
}

Status Bad(const std::string& where, const std::string& what) {
  return Status(EINVAL, where + ": not a staging manifest: " + what);
}

}  // namespace

Result<std::vector<Entry>> Walk(const std::string& root) {
  std::vector<Entry> out;
  BB_RETURN_IF_ERROR(WalkInto(root, "", &out));
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> Pieces(uint64_t size, uint64_t piece) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t at = 0; at < size; at += piece) out.emplace_back(at, std::min(piece, size - at));
  if (out.empty()) out.emplace_back(0, 0);
  return out;
}

uint64_t FileHash(const std::vector<uint64_t>& piece_hashes) {
  std::vector<unsigned char> bytes;
  bytes.reserve(piece_hashes.size() * 8);
  for (uint64_t h : piece_hashes) {
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<unsigned char>(h >> (8 * i)));
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

namespace {

// Whether `s` is well-formed UTF-8 (JSON strings must be; file names need not be).
bool IsUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && c < 0xc2)) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    }
    i += n;
  }
  return true;
}

// A name as a JSON field: KEY when it is UTF-8, else KEY_hex with its bytes in hex.
void PutName(json& obj, const std::string& key, const std::string& name) {
  if (IsUtf8(name)) {
    obj[key] = name;
    return;
  }
  std::string hex;
  for (unsigned char c : name) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", c);
    hex += b;
  }
  obj[key + "_hex"] = hex;
}

std::string GetName(const json& obj, const std::string& key) {
  if (obj.contains(key)) return obj.at(key).get<std::string>();
  std::string hex = obj.at(key + "_hex").get<std::string>(), out;
  if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
    throw std::invalid_argument(key + "_hex '" + hex + "' is not hex bytes");
  }
  for (size_t i = 0; i < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

}  // namespace

std::string FormatManifest(const Manifest& m) {
  json files = json::array();
  for (const auto& [rel, f] : m.files) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(f.hash));
    json entry = {{"size", f.size}, {"mtime_ns", f.mtime_ns}, {"xxh3_64", hex}};
    PutName(entry, "path", rel);
    files.push_back(std::move(entry));
  }
  json doc = {{"version", 1}, {"piece_bytes", m.piece_bytes}, {"files", files}};
  PutName(doc, "source", m.source);
  PutName(doc, "destination", m.destination);
  return doc.dump(1) + "\n";
}

Result<Manifest> ParseManifest(const std::string& text, const std::string& where) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Bad(where, "not a JSON object");
  if (doc.value("version", 0) != 1) return Bad(where, "version is not 1");
  Manifest m;
  try {
    m.source = GetName(doc, "source");
    m.destination = GetName(doc, "destination");
    m.piece_bytes = doc.at("piece_bytes").get<uint64_t>();
    for (const json& f : doc.at("files")) {
      ManifestFile mf;
      mf.size = f.at("size").get<uint64_t>();
      mf.mtime_ns = f.at("mtime_ns").get<int64_t>();
      std::string hex = f.at("xxh3_64").get<std::string>();
      char* end = nullptr;
      mf.hash = std::strtoull(hex.c_str(), &end, 16);
      if (hex.size() != 16 || end != hex.c_str() + 16) return Bad(where, "xxh3_64 '" + hex + "' is not 16 hex digits");
      m.files.emplace_back(GetName(f, "path"), mf);
    }
  } catch (const json::exception& e) {
    return Bad(where, e.what());
  } catch (const std::invalid_argument& e) {
    return Bad(where, e.what());
  }
  return m;
}

}  // namespace bb::stage
