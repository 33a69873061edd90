// bbd: the burst buffer daemon of one node. Mounts the file system with FUSE and serves it.
//
//   bbd --root DIR --mount DIR [--config FILE] [--foreground] [--chunk-size SIZE] ...
//
// Without --foreground it detaches, and the starting process exits only when the mount is
// ready (0) or has failed (1, with the reason on stderr), so scripts can rely on its status.
// SIGTERM/SIGINT unmount cleanly; SIGHUP and SIGUSR1 reopen <root>/bbd.log (log rotation).
#include <fcntl.h>
#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/syslog_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "fs/base/mounts.h"
#include "fs/daemon/config.h"
#include "fs/daemon/daemon.h"
#include "fs/daemon/startup.h"
#include "fs/fuse/adapter.h"
#include "tools/bbd/log_reopen.h"
#include "tools/cli/cli.h"
#include "tools/config/daemon_config.h"

namespace {

using bb::Status;
using namespace bb::fs;

// Reports the outcome of startup to the process that launched a detached daemon.
class Launcher {
 public:
  void Detach() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_t pid = ::fork();
    if (pid < 0) return;
    if (pid > 0) {  // the starting process: wait for the verdict
      ::close(fds[1]);
      std::string msg;
      char buf[512];
      ssize_t n;
      while ((n = ::read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<size_t>(n));
      if (msg.rfind("OK", 0) == 0) {
        std::fputs(msg.c_str() + 2, stdout);
        std::fflush(stdout);
        std::_Exit(0);
      }
      std::fprintf(stderr, "%s\n", msg.empty() ? "bbd: the daemon exited during startup" : msg.c_str());
      std::fflush(stderr);
      std::_Exit(1);
    }
    ::close(fds[0]);
    fd_ = fds[1];
    ::setsid();
  }
  void Ready(const std::string& text) { Send("OK" + text); }
  void Fail(const std::string& text) { Send(text); }
  bool detached() const { return fd_ >= 0; }

 private:
  void Send(const std::string& text) {
    if (fd_ < 0) return;
    (void)!::write(fd_, text.data(), text.size());
    ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

int Fail(Launcher& launcher, const Status& s) {
  std::string text = "bbd: " + s.message();
  if (launcher.detached()) {
    spdlog::error("{}", s.message());  // to <root>/bbd.log
    launcher.Fail(text);
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  return 1;
}

}  // namespace

namespace {

// A field's meaning as --help shows it: the docs' Markdown quotes dropped, its default after it.
std::string HelpText(std::string meaning, std::string def) {
  std::erase(meaning, '`');
  std::erase(def, '`');
  if (def.rfind("— ", 0) == 0) def = def.substr(std::string("— ").size());
  if (def == "—") def = "none";
  if (def.size() > 2 && def.front() == '(' && def.back() == ')') def = def.substr(1, def.size() - 2);
  return meaning + " (default: " + def + ")";
}

// The kind of value a field takes, for the option's column of --help.
std::string TypeName(const bb::config::DaemonField& f) {
  std::string name = f.name, def = f.default_text;
  if (name == "root" || name == "mount" || name.ends_with("_file")) return "PATH";
  if (def.find("iB") != std::string::npos) return "SIZE";
  if (def == "`on`" || def == "`off`") return "on|off";
  if (!def.empty() && (std::isdigit(static_cast<unsigned char>(def[0])) != 0)) return "NUMBER";
  return "VALUE";
}

}  // namespace

int main(int argc, char** argv) {
  // A log or peer that went away is an error on that write (every socket write says
  // MSG_NOSIGNAL too), never a reason to die.
  ::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"bbd: burst buffer daemon (one per node)"};
  std::string config_path;
  // Flags that override fields of the configuration file: one per field of the table.
  std::map<std::string, std::string> values;
  for (const bb::config::DaemonField& f : bb::config::DaemonFields()) {
    if (f.flag) {
      app.add_option(bb::config::FlagOf(f.name), values[f.name], HelpText(f.meaning, f.default_text))
          ->type_name(TypeName(f));
    }
  }
  bool foreground = false;
  app.add_option("--config", config_path, "YAML configuration file")->check(CLI::ExistingFile);
  bool print_fields = false;
  app.add_flag("-f,--foreground", foreground, "stay in the foreground, log to stderr");
  app.add_flag("--config-fields", print_fields, "print the table of configuration fields (Markdown) and exit");
  bb::cli::Setup(app);
  if (int rc = bb::cli::Parse(app, argc, argv, "bbd"); rc >= 0) return rc;
  if (print_fields) {
    std::fputs(bb::config::DaemonFieldsMarkdown().c_str(), stdout);
    return 0;
  }

  // Everything the daemon creates — the metadata database, chunks, its log, its socket — is its
  // owner's only.
  ::umask(077);
  Launcher launcher;
  DaemonConfig cfg;
  if (!config_path.empty()) {
    auto loaded = bb::config::LoadDaemonConfig(config_path);
    if (!loaded) return Fail(launcher, loaded.error());
    cfg = *loaded;
  }
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const bb::config::DaemonField& f : bb::config::DaemonFields()) {
    if (f.flag && app.count(bb::config::FlagOf(f.name)) > 0) overrides.emplace_back(f.name, values[f.name]);
  }
  if (Status s = bb::config::ApplyOverrides(&cfg, overrides, "command line"); !s.ok()) return Fail(launcher, s);
  if (cfg.root.empty()) return Fail(launcher, Status(EINVAL, "no root given (--root or 'root:')"));
  if (cfg.mount.empty()) return Fail(launcher, Status(EINVAL, "no mount point given (--mount or 'mount:')"));
  if (cfg.cluster() && cfg.node_name.empty()) {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    cfg.node_name = host;
  }
  if (Status s = ValidateDaemonConfig(cfg); !s.ok()) return Fail(launcher, s);
  std::error_code ec;
  cfg.root = std::filesystem::absolute(cfg.root, ec).lexically_normal().string();
  cfg.mount = std::filesystem::absolute(cfg.mount, ec).lexically_normal().string();
  if (cfg.root.size() > 1 && cfg.root.back() == '/') cfg.root.pop_back();
  if (cfg.mount.size() > 1 && cfg.mount.back() == '/') cfg.mount.pop_back();

  if (Status s = CheckMountPoint(cfg.mount); !s.ok()) return Fail(launcher, s);
  if (!foreground) launcher.Detach();

  // Logging: stderr in the foreground, <root>/bbd.log when detached.
  std::filesystem::create_directories(cfg.root, ec);
  if (ec) return Fail(launcher, Status(ec.value(), "cannot create root " + cfg.root + ": " + ec.message()));
  std::shared_ptr<bb::bbd::ReopenableFileSink> log_file;
  if (cfg.log_to == "syslog") {
    // Facility daemon, ident bbd: journald and any syslog daemon take it from /dev/log.
    spdlog::set_default_logger(spdlog::syslog_logger_mt("bbd", "bbd", LOG_PID, LOG_DAEMON));
  } else if (foreground) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("bbd"));
  } else {
    try {
      log_file = std::make_shared<bb::bbd::ReopenableFileSink>(cfg.root + "/bbd.log");
      spdlog::set_default_logger(std::make_shared<spdlog::logger>("bbd", log_file));
    } catch (const spdlog::spdlog_ex& e) {
      return Fail(launcher, Status(EIO, std::string("cannot open log: ") + e.what()));
    }
  }
  if (!foreground) {
    int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::close(null);
    }
  }
  spdlog::set_level(spdlog::level::from_str(cfg.log_level));
  // Each line at info and above reaches the log at once; debug and trace lines with the next of
  // those (or at exit). No flusher thread: an idle daemon does not wake to flush nothing.
  spdlog::flush_on(spdlog::level::info);

  auto daemon = Daemon::Start(cfg);
  if (!daemon) return Fail(launcher, daemon.error());

  AdapterContext ctx{&(*daemon)->fs(), AdapterOptions{cfg.EffectiveCacheTimeout(), 1 << 20, cfg.private_cache_timeout},
                     (*daemon)->stage(), (*daemon)->channels()};
  ctx.stats = (*daemon)->stats();
  std::vector<std::string> arg_storage = {
      "bbd", "-o",
      "fsname=" + cfg.fsname + ",subtype=bbfs,default_permissions,noatime,nosuid,nodev,max_read=" +
          std::to_string(ctx.options.max_write) + std::string(::getuid() == 0 ? ",allow_other" : "")};
  std::vector<char*> fuse_argv;
  for (auto& a : arg_storage) fuse_argv.push_back(a.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(fuse_argv.size()), fuse_argv.data());
  fuse_session* se = fuse_session_new(&args, &FuseOperations(cfg.xattrs), sizeof(fuse_lowlevel_ops), &ctx);
  if (se == nullptr) return Fail(launcher, Status(EIO, "cannot create the FUSE session"));
  ctx.session = se;
  if (fuse_set_signal_handlers(se) != 0) {
    fuse_session_destroy(se);
    return Fail(launcher, Status(EIO, "cannot install signal handlers"));
  }
  bb::bbd::LogReopener reopener(log_file);  // SIGHUP: reopen the log, not unmount
  if (fuse_session_mount(se, cfg.mount.c_str()) != 0) {
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    return Fail(launcher, Status(EIO, "cannot mount on " + cfg.mount + " (is /dev/fuse available?)"));
  }
  bb::fs::FileSystem* fs = &(*daemon)->fs();
  fs->SetOwnKernel([coherence = (*daemon)->coherence()](const std::vector<bb::fs::Invalidation>& items) {
    coherence->ToKernel(items);
  });
  (*daemon)->coherence()->SetKernel(bb::fs::KernelHooks{
      [fs](const std::vector<bb::fs::Invalidation>& items) { fs->Invalidated(items); },
      [se, fs](const std::vector<bb::fs::Invalidation>& items) { bb::fs::InvalidateInKernel(se, *fs, items); },
      [&ctx, fs](const std::vector<bb::fs::Invalidation>& items) {
        return bb::fs::KernelHeldBy(ctx.calls, *fs, items);
      }});
  spdlog::info("mounted {} (root {}, chunk size {}, {} FUSE threads)", cfg.mount, cfg.root, cfg.chunk_size,
               cfg.fuse_threads);
  launcher.Ready("bbd: mounted " + cfg.mount + " (root " + cfg.root + ", pid " + std::to_string(::getpid()) + ")\n");

  fuse_loop_config* loop = fuse_loop_cfg_create();
  // All workers share the kernel's one input queue either way; a cloned fd per worker measured
  // no faster here, so keep libfuse's default.
  fuse_loop_cfg_set_clone_fd(loop, 0);
  fuse_loop_cfg_set_max_threads(loop, cfg.fuse_threads);
  // Idle workers are never retired (libfuse's own default): retiring and re-creating them as
  // load comes and goes measured slower for small writes.
  fuse_loop_cfg_set_idle_threads(loop, UINT_MAX);
  int rc = fuse_session_loop_mt(se, loop);
  fuse_loop_cfg_destroy(loop);
  (*daemon)->StopQos();   // answers what waits for QoS tokens while the session is there
  ctx.lock_waits.Stop();  // and the lock requests that wait for other owners' locks
  // No more invalidations into the session. The notifier may be waiting in the kernel for a
  // directory or page lock that a process holds while its request waits, unread now, in the
  // session: then abort the connection, which answers that request and frees the notifier.
  if (!(*daemon)->coherence()->SetKernel(bb::fs::KernelHooks{}, std::chrono::seconds(2))) {
    spdlog::warn("an invalidation is held up in the kernel at shutdown: aborting the FUSE connection of {}", cfg.mount);
    if (Status s = bb::AbortFuseConnection(cfg.mount); !s.ok()) spdlog::error("{}", s.ToString());
    (*daemon)->coherence()->SetKernel(nullptr);
  }
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  spdlog::info("unmounted {}", cfg.mount);
  daemon->reset();
  spdlog::shutdown();
  return rc < 0 ? 1 : 0;
}
