// bbd's log file, reopened on SIGHUP or SIGUSR1 (for logrotate: move the file, signal, and the
// daemon writes to a new one at the same path), while SIGTERM and SIGINT unmount. The signal
// handler only writes a byte to a pipe; a thread of its own reopens the file under the sink's
// lock, so no log line is lost or split.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace bb::bbd {

class ReopenableFileSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ReopenableFileSink(const std::string& path) { file_.open(path, false); }
  void Reopen() {
    std::lock_guard<std::mutex> lock(this->mutex_);
    file_.reopen(false);
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    this->formatter_->format(msg, line);
    file_.write(line);
  }
  void flush_() override { file_.flush(); }

 private:
  spdlog::details::file_helper file_;
};

// Reopens `sink` (may be null: nothing to reopen, the signals are still taken from libfuse, so
// they never unmount) whenever SIGHUP or SIGUSR1 arrives, until destroyed.
class LogReopener {
 public:
  explicit LogReopener(std::shared_ptr<ReopenableFileSink> sink) : sink_(std::move(sink)) {
    if (::pipe2(pipe_, O_CLOEXEC) != 0) return;
    write_end() = pipe_[1];
    struct sigaction sa {};
    sa.sa_handler = [](int) {
      char b = 1;
      (void)!::write(write_end(), &b, 1);
    };
    ::sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGHUP, &sa, nullptr);
    ::sigaction(SIGUSR1, &sa, nullptr);
    thread_ = std::thread([this] {
      char b;
      while (::read(pipe_[0], &b, 1) == 1) {
        if (b == 0) break;  // the destructor's
        if (sink_) sink_->Reopen();
        spdlog::info("log reopened (SIGHUP or SIGUSR1)");
      }
    });
  }
  ~LogReopener() {
    if (!thread_.joinable()) return;
    char b = 0;
    (void)!::write(pipe_[1], &b, 1);
    thread_.join();
    ::signal(SIGHUP, SIG_IGN);
    ::signal(SIGUSR1, SIG_IGN);
    ::close(pipe_[0]);
    ::close(pipe_[1]);
  }
  LogReopener(const LogReopener&) = delete;
  LogReopener& operator=(const LogReopener&) = delete;

 private:
  static int& write_end() {
    static int fd = -1;
    return fd;
  }
  std::shared_ptr<ReopenableFileSink> sink_;
  int pipe_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace bb::bbd
