#include "fs/daemon/hosts_file.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace bb::fs {

Result<std::pair<std::string, uint16_t>> ParseHostPort(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) return Status(EINVAL, "'" + text + "' is not ip:port");
  std::string host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  in_addr a{};
  if (inet_pton(AF_INET, host.c_str(), &a) != 1) return Status(EINVAL, "'" + host + "' is not an IPv4 address");
  char* end = nullptr;
  unsigned long p = std::strtoul(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || p == 0 || p > 65535) {
    return Status(EINVAL, "'" + port + "' is not a port number");
  }
  return std::make_pair(host, static_cast<uint16_t>(p));
}

Result<std::vector<HostEntry>> ReadHosts(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(ENOENT, "cannot read hosts file " + path);
  std::vector<HostEntry> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string name, addr, extra;
    if (!(f >> name >> addr) || (f >> extra)) {
      return Status(EINVAL, path + ":" + std::to_string(n) + ": expected '<node name> <ip>:<port>'");
    }
    auto hp = ParseHostPort(addr);
    if (!hp) return Status(EINVAL, path + ":" + std::to_string(n) + ": " + hp.error().message());
    out.push_back({name, hp->first, hp->second});
  }
  std::sort(out.begin(), out.end(), [](const HostEntry& a, const HostEntry& b) { return a.name < b.name; });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].name == out[i - 1].name) return Status(EINVAL, path + ": node '" + out[i].name + "' is listed twice");
  }
  return out;
}

Status PublishHost(const std::string& path, const HostEntry& self) {
  std::string lock_path = path + ".lock";
  int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return Status(errno, "cannot open " + lock_path + ": " + std::strerror(errno));
  if (::flock(lock, LOCK_EX) != 0) {
    ::close(lock);
    return Status(errno, "cannot lock " + lock_path);
  }
  std::vector<HostEntry> entries;
  auto existing = ReadHosts(path);
  if (existing) entries = std::move(*existing);
  std::erase_if(entries, [&](const HostEntry& e) { return e.name == self.name; });
  entries.push_back(self);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  Status result;
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const HostEntry& e : entries) out << e.name << ' ' << e.host << ':' << e.port << '\n';
    out.flush();
    if (!out) result = Status(EIO, "cannot write " + tmp);
  }
  if (result.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    result = Status(errno, "cannot replace " + path + ": " + std::strerror(errno));
  }
  ::unlink(tmp.c_str());
  ::close(lock);  // releases the lock
  return result;
}

Result<std::vector<HostEntry>> WaitForHosts(const std::string& path, size_t count, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  size_t seen = 0;
  while (true) {
    auto hosts = ReadHosts(path);
    if (hosts) {
      seen = hosts->size();
      if (seen == count) return hosts;
      if (seen > count) {
        return Status(EINVAL, "hosts file " + path + " lists " + std::to_string(seen) + " nodes, expected " +
                                  std::to_string(count));
      }
    } else if (hosts.error().code() != ENOENT) {
      return hosts.error();
    }
    if (std::chrono::steady_clock::now() >= until) {
      return Status(ETIMEDOUT,
                    "waited for " + std::to_string(count) + " nodes in " + path + ", saw " + std::to_string(seen));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace bb::fs
