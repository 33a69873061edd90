#include "fs/daemon/control.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "fs/base/thread_name.h"

namespace bb::fs {
namespace {

constexpr size_t kMaxRequest = 1 << 20;
constexpr size_t kMaxReply = size_t{512} << 20;  // a profile of many files is large
constexpr int kRequestDeadlineMs = 10000;

Result<sockaddr_un> Address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return Status(ENAMETOOLONG, "control socket path " + path + " is longer than " +
                                    std::to_string(sizeof(addr.sun_path) - 1) + " bytes");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Reads up to the first newline, within the deadline. Returns the line without it.
Result<std::string> ReadLine(int fd, int64_t deadline_ms, size_t max_bytes) {
  std::string in;
  char buf[65536];
  size_t searched = 0;  // no newline before this
  for (;;) {
    size_t nl = in.find('\n', searched);
    if (nl != std::string::npos) return in.substr(0, nl);
    searched = in.size();
    if (in.size() > max_bytes) {
      return Status(EMSGSIZE, "message longer than " + std::to_string(max_bytes >> 20) + " MiB");
    }
    int64_t left = deadline_ms - NowMs();
    if (left <= 0) return Status(ETIMEDOUT, "no complete line within the deadline");
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return Status(ETIMEDOUT, "no complete line within the deadline");
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status(errno, std::string("read: ") + std::strerror(errno));
    if (n == 0) {
      if (in.empty()) return Status(EPROTO, "connection closed before a message");
      return in;  // the last line may lack its newline
    }
    in.append(buf, static_cast<size_t>(n));
  }
}

Status WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status(errno, std::string("write: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

nlohmann::json ErrorReply(const std::string& what) { return {{"ok", false}, {"error", what}}; }

}  // namespace

Result<nlohmann::json> ParseControlRequest(std::string_view line) {
  auto request = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded() || !request.is_object()) return Status(EPROTO, "not a JSON object on one line");
  return request;
}

Result<std::unique_ptr<ControlServer>> ControlServer::Start(const std::string& path, ControlHandler handler) {
  BB_ASSIGN_OR_RETURN(sockaddr_un addr, Address(path));
  // A live daemon there answers; a stale socket (a killed daemon) is replaced.
  if (auto alive = ControlCall(path, {{"cmd", "job_list"}}, 1000); alive) {
    return Status(EADDRINUSE, "a daemon already answers on " + path);
  }
  ::unlink(path.c_str());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(errno, std::string("socket: ") + std::strerror(errno));
  mode_t old = ::umask(077);
  int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::umask(old);
  if (rc != 0 || ::listen(fd, 64) != 0) {
    Status s(errno, "cannot listen on " + path + ": " + std::strerror(errno));
    ::close(fd);
    return s;
  }
  return std::unique_ptr<ControlServer>(new ControlServer(path, fd, std::move(handler)));
}

ControlServer::ControlServer(std::string path, int fd, ControlHandler handler)
    : path_(std::move(path)), listen_fd_(fd), handler_(std::move(handler)) {
  for (size_t i = 0; i < kControlThreads; ++i) workers_.push_back(NamedThread("bb-control", [this] { WorkerLoop(); }));
  acceptor_ = NamedThread("bb-control-acc", [this] { AcceptLoop(); });
}

ControlServer::~ControlServer() {
  stop_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
  cv_.notify_all();
  for (auto& t : workers_) t.join();
  for (int fd : queue_) ::close(fd);
  ::unlink(path_.c_str());
}

void ControlServer::AcceptLoop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    int r = ::poll(&p, 1, 5000);  // the destructor's shutdown() wakes it at once
    if (r <= 0 || stop_) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    {
      std::lock_guard lock(mu_);
      if (queue_.size() < kControlQueue) {
        queue_.push_back(fd);
        fd = -1;
      }
    }
    if (fd >= 0) {
      ::close(fd);  // the queue is full: a client that floods the socket gets nothing
      continue;
    }
    cv_.notify_one();
  }
}

void ControlServer::WorkerLoop() {
  for (;;) {
    int fd;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      fd = queue_.front();
      queue_.pop_front();
    }
    Serve(fd);
  }
}

void ControlServer::Serve(int fd) {
  ControlPeer peer;
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) peer = {cred.uid, cred.gid, cred.pid};
  nlohmann::json reply;
  auto line = ReadLine(fd, NowMs() + kRequestDeadlineMs, kMaxRequest);
  if (!line) {
    reply = ErrorReply("bad request: " + line.error().message());
  } else {
    auto request = ParseControlRequest(*line);
    reply = request ? handler_(*request, peer) : ErrorReply("bad request: " + request.error().message());
  }
  (void)WriteAll(fd, reply.dump() + "\n");
  ::close(fd);
}

Result<nlohmann::json> ControlCall(const std::string& path, const nlohmann::json& request, int timeout_ms) {
  BB_ASSIGN_OR_RETURN(sockaddr_un addr, Address(path));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(errno, std::string("socket: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int err = errno;
    if (err == EACCES || err == EPERM) {
      return Status(err, "the daemon's control socket " + path +
                             " may be used only by the daemon's owner (and root): " + std::strerror(err));
    }
    return Status(err, "no daemon answers on " + path + ": " + std::strerror(err));
  }
  BB_RETURN_IF_ERROR(WriteAll(fd, request.dump() + "\n"));
  auto line = ReadLine(fd, NowMs() + timeout_ms, kMaxReply);
  if (!line) return line.error().Annotate("reply from " + path);
  auto reply = nlohmann::json::parse(*line, nullptr, false);
  if (reply.is_discarded() || !reply.is_object()) return Status(EPROTO, "reply from " + path + " is not JSON");
  return reply;
}

}  // namespace bb::fs
