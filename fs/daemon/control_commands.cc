// The control socket's commands (fs/daemon/control.h), one row each in kCommands.
#include <spdlog/spdlog.h>

#include "fs/daemon/daemon.h"
#include "fs/daemon/profile_json.h"

namespace bb::fs {
namespace {

using nlohmann::json;

json Failure(const Status& s) { return {{"ok", false}, {"error", s.message()}, {"errno", s.code()}}; }

json SpecJson(const std::string& name, const WorkspaceSpec& spec) {
  json j = {{"name", name}, {"mode", ModeNumber(spec.layout.mode)}, {"chunk_size", spec.chunk_size}};
  if (ModeOf(spec.layout.mode).uses_metadata_ratio) j["metadata_server_ratio"] = spec.layout.metadata_server_ratio;
  return j;
}

// The string field `key` of a request, or an error naming it.
Result<std::string> Field(const json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end() || !it->is_string())
    return Status(EINVAL, std::string("request needs a string field '") + key + "'");
  return it->get<std::string>();
}

// The number field `key`, `otherwise` when absent, or an error naming it.
Result<double> Number(const json& r, const char* key, std::optional<double> otherwise) {
  auto it = r.find(key);
  if (it == r.end() && otherwise) return *otherwise;
  if (it == r.end() || !it->is_number())
    return Status(EINVAL, std::string("request needs a number field '") + key + "'");
  return it->get<double>();
}

struct Command {
  const char* name;
  json (Daemon::*run)(const json& request, const ControlPeer& peer);
};

}  // namespace

// The layout fields of a job_start request (a parsed mode file): mode, chunk_size and, for
// modes that use one, metadata_server_ratio; checked against the mode table.
Result<WorkspaceSpec> JobStartSpec(const json& r) {
  BB_ASSIGN_OR_RETURN(double number, Number(r, "mode", std::nullopt));
  const ModeInfo* mode = number == static_cast<int64_t>(number) ? FindMode(static_cast<int64_t>(number)) : nullptr;
  if (mode == nullptr) return Status(EINVAL, "field 'mode' must be " + ModeNumbers());
  WorkspaceSpec spec;
  spec.layout.mode = mode->mode;
  BB_ASSIGN_OR_RETURN(double chunk, Number(r, "chunk_size", kDefaultChunkSize));
  if (!(chunk >= 0 && chunk <= 1e12) || chunk != static_cast<uint64_t>(chunk)) return CheckChunkSize(0);
  BB_RETURN_IF_ERROR(CheckChunkSize(static_cast<uint64_t>(chunk)));
  spec.chunk_size = static_cast<uint32_t>(chunk);
  if (r.contains("metadata_server_ratio")) {
    if (!mode->uses_metadata_ratio)
      return Status(EINVAL, "field 'metadata_server_ratio' does not apply to mode " + std::to_string(number));
    BB_ASSIGN_OR_RETURN(spec.layout.metadata_server_ratio, Number(r, "metadata_server_ratio", std::nullopt));
  }
  BB_RETURN_IF_ERROR(ValidateSpec(spec));
  return spec;
}

nlohmann::json Daemon::Control(const json& request, const ControlPeer& peer) {
  static const Command kCommands[] = {
      {"stats", &Daemon::StatsCommand},
      {"job_start", &Daemon::JobStartCommand},
      {"job_stop", &Daemon::JobStopCommand},
      {"job_list", &Daemon::JobListCommand},
      {"qos_set", &Daemon::QosSetCommand},
      {"profile_start", &Daemon::ProfileStartCommand},
      {"profile_stop", &Daemon::ProfileStopCommand},
      {"drop_caches", &Daemon::DropCachesCommand},
  };
  auto cmd = Field(request, "cmd");
  if (!cmd) return Failure(cmd.error());
  std::string known;
  for (const Command& c : kCommands) {
    if (*cmd == c.name) return (this->*c.run)(request, peer);
    known += (known.empty() ? "" : ", ") + std::string(c.name);
  }
  return Failure(Status(EINVAL, "unknown command '" + *cmd + "' (known: " + known + ")"));
}

json Daemon::StatsCommand(const json&, const ControlPeer&) {
  json ops = json::object();
  for (size_t i = 0; i < kFsOpCount; ++i) ops[FsOpName(static_cast<FsOp>(i))] = stats_->ops(static_cast<FsOp>(i));
  json to = json::array();
  for (uint32_t n = 0; n < stats_->nodes(); ++n) {
    const auto& t = stats_->to(n);
    to.push_back({{"node", n},
                  {"meta_requests", t.meta_requests.load()},
                  {"data_requests", t.data_requests.load()},
                  {"read_bytes", t.read_bytes.load()},
                  {"write_bytes", t.write_bytes.load()}});
  }
  const auto& sv = stats_->served();
  json errors = json::object();  // error replies by errno, the ones that happened
  for (size_t e = 0; e < NodeStats::kErrnos; ++e) {
    if (uint64_t n = stats_->errors(static_cast<int>(e))) errors[std::to_string(e)] = n;
  }
  json space = json::object();
  if (auto sp = local_->StatSpace()) {
    space = {{"total_bytes", sp->total_blocks * sp->block_size},
             {"free_bytes", sp->free_blocks * sp->block_size},
             {"avail_bytes", sp->avail_blocks * sp->block_size}};
  }
  json workspaces = WorkspacesJson();
  return {{"ok", true},
          {"time_ns", clock_.MonotonicNs()},
          {"errors", errors},
          {"space", space},
          {"node", self()},
          {"name", name_},
          {"nodes", nodes()},
          {"ops", ops},
          {"replicated_reads", stats_->replicated_reads()},
          {"dir_updates_sent", stats_->dir_updates()},
          {"to", to},
          {"served",
           {{"meta_ops", sv.meta_ops.load()},
            {"data_ops", sv.data_ops.load()},
            {"read_bytes", sv.read_bytes.load()},
            {"write_bytes", sv.write_bytes.load()}}},
          {"peers", PeersJson()},
          {"workspaces", workspaces.size()},
          {"workspace_list", std::move(workspaces)},
          {"invalidations", CoherenceJson()},
          {"statahead", StataheadJson()},
          {"chunk_removals", ChunkRemovalsJson()},
          {"small_files", SmallFilesJson()},
          {"qos", QosJson()}};
}

json Daemon::WorkspacesJson() {
  json list = json::array();
  for (const auto& [name, spec] : router_->List()) list.push_back(SpecJson(name, spec));
  return list;
}

json Daemon::PeersJson() {
  json peers = json::array();
  if (transport_) {
    for (const auto& c : transport_->Counters()) {
      peers.push_back({{"peer", c.peer},
                       {"calls_sent", c.calls_sent},
                       {"calls_failed", c.calls_failed},
                       {"calls_extended", c.calls_extended},
                       {"calls_pushed_back", c.calls_pushed_back},
                       {"bytes_sent", c.bytes_sent},
                       {"bytes_received", c.bytes_received},
                       {"requests_received", c.requests_received},
                       {"request_bytes_received", c.request_bytes_received},
                       {"latency", c.latency},
                       {"latency_seconds", c.latency_seconds}});
    }
  }
  return peers;
}

json Daemon::CoherenceJson() {
  const CoherenceStats& c = coherence_->stats();
  return {{"sent", c.sent.load()},
          {"failed", c.failed.load()},
          {"broken", c.broken.load()},
          {"owed", c.owed.load()},
          {"received", c.received.load()},
          {"deferred", c.deferred.load()},
          {"callbacks", coherence_->table().size()}};
}

json Daemon::DropCachesCommand(const json&, const ControlPeer&) {
  coherence_->ToKernel({kDropEverything}, std::chrono::seconds(10));  // returns once it is done
  return {{"ok", true}};
}

json Daemon::StataheadJson() {
  Statahead::Counters c = fs_->StataheadCounters();
  return {{"reads", c.reads}, {"fetched", c.fetched}, {"hits", c.hits}};
}

json Daemon::ChunkRemovalsJson() {
  ChunkRemovals::Counters c = fs_->ChunkRemovalCounters();
  return {
      {"behind", c.noted}, {"batches", c.batches}, {"failed", c.failed}, {"retrying", fs_->ChunkRemovalsRetrying()}};
}

json Daemon::SmallFilesJson() {
  DeferredCreates::Counters d = fs_->DeferredCounters();
  NameReservations::Counters r = coherence_->names().counters();
  DirLeases::Counters l = fs_->LeaseCounters();
  return {{"made_here", d.made},
          {"with_first_write", d.with_write},
          {"batches", d.batches},
          {"handed_over", d.handed_over},
          {"rights_released", d.released},
          {"lost", d.lost},
          {"retried", d.retried},
          {"rights_taken", d.granted},
          {"waiting", fs_->DeferredWaiting()},
          {"reserved_for_others", r.granted},
          {"settled", r.settled},
          {"stored_from_hand_over", r.handed_over},
          {"hand_overs_failed", r.recall_failed},
          {"reservations_held", r.held},
          {"leases_asked", l.asked},
          {"leases_taken", l.granted},
          {"leases_renewed", l.renewed},
          {"leases_refused", l.refused},
          {"leases_given_back", l.recalled},
          {"lookups_by_lease", l.absent},
          {"leases_held", l.held},
          {"leased_to_others", r.leased},
          {"leases_asked_back", r.lease_recalls},
          {"leased_now", r.leases_held}};
}

json Daemon::QosSetCommand(const json& request, const ControlPeer&) {
  if (!stage_) {
    return Failure(Status(EINVAL,
                          "the QoS stage is off on this node (qos_stage: off, or nothing configured; start "
                          "bbd with --qos-stage on)"));
  }
  auto job = Field(request, "job");
  if (!job) return Failure(job.error());
  for (auto [key, cls] : {std::pair{"metadata", qos::Class::kMetadata}, std::pair{"data", qos::Class::kData}}) {
    if (!request.contains(key)) continue;
    const auto& v = request[key];
    if (v.is_null() || (v.is_number() && v.get<double>() == 0)) {
      stage_->SetLimit(*job, cls, std::nullopt);
    } else if (v.is_number() && v.get<double>() > 0) {
      stage_->SetLimit(*job, cls, qos::Limit{v.get<double>(), 0});
    } else {
      return Failure(Status(EINVAL, std::string("field '") + key + "' must be a rate above 0, or 0/null for no limit"));
    }
  }
  return {{"ok", true}, {"qos", QosJson()}};
}

json Daemon::JobListCommand(const json&, const ControlPeer&) {
  json jobs = json::array();
  for (const auto& [name, spec] : router_->List()) {
    auto j = SpecJson(name, spec);
    j["path"] = mount_ + "/" + name;
    jobs.push_back(j);
  }
  return {{"ok", true}, {"jobs", jobs}};
}

json Daemon::JobStartCommand(const json& request, const ControlPeer& peer) {
  auto name = Field(request, "name");
  if (!name) return Failure(name.error());
  auto spec = JobStartSpec(request);
  if (!spec) return Failure(spec.error().Annotate("workspace " + *name));
  std::string reason = request.value("reason", std::string());
  std::string selected_by = request.value("selected_by", std::string("user"));
  Status s = fs_->CreateWorkspace(*name, *spec, Caller{peer.uid, peer.gid, peer.pid});
  if (!s.ok()) return Failure(s);
  spdlog::info("workspace {} created: mode {} ({} by {})", *name, ModeNumber(spec->layout.mode),
               reason.empty() ? "no reason given" : reason, selected_by);
  auto j = SpecJson(*name, *spec);
  j["ok"] = true;
  j["path"] = mount_ + "/" + *name;
  return j;
}

json Daemon::JobStopCommand(const json& request, const ControlPeer& peer) {
  auto name = Field(request, "name");
  if (!name) return Failure(name.error());
  Status s = fs_->RemoveWorkspace(*name, *router_, Caller{peer.uid, peer.gid, peer.pid});
  if (!s.ok()) return Failure(s);
  (void)fs_->profiles().Stop(*name);
  spdlog::info("workspace {} removed", *name);
  return {{"ok", true}, {"name", *name}};
}

json Daemon::ProfileStartCommand(const json& request, const ControlPeer&) {
  auto name = Field(request, "name");
  if (!name) return Failure(name.error());
  if (!router_->Find(*name)) return Failure(Status(ENOENT, "no workspace " + *name));
  fs_->profiles().Start(*name, clock_.WallNs());
  spdlog::info("workspace {}: I/O profile on", *name);
  return {{"ok", true}, {"name", *name}};
}

json Daemon::ProfileStopCommand(const json& request, const ControlPeer&) {
  auto name = Field(request, "name");
  if (!name) return Failure(name.error());
  auto profile = fs_->profiles().Stop(*name);
  if (!profile) return Failure(Status(ENOENT, "workspace " + *name + " is not profiled on this node"));
  return {{"ok", true}, {"profile", ProfileJson(*profile)}};
}

json Daemon::QosJson() {
  json q = {{"stage", stage_ != nullptr}};
  if (!stage_) return q;
  q["controller"] = qos_client_ ? (qos_client_->connected() ? "connected" : "disconnected") : "none";
  if (qos_client_ && !qos_client_->connected()) q["controller_error"] = qos_client_->last_error();
  json channels = json::array();
  for (const auto& c : stage_->Stats()) {
    channels.push_back({{"job", c.job},
                        {"class", qos::ClassName(c.cls)},
                        {"limit", c.limit ? json(*c.limit) : json(nullptr)},
                        {"ops", c.ops},
                        {"units", c.units},
                        {"rate", c.rate},
                        {"queued", c.queued},
                        {"waited", c.waited},
                        {"wait_ms_total", c.wait_ms_total},
                        {"wait_ms_max", c.wait_ms_max}});
  }
  q["channels"] = channels;
  return q;
}

}  // namespace bb::fs
