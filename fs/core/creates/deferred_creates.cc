#include "fs/core/creates/deferred_creates.h"

#include <map>

#include "fs/core/placement/path.h"

namespace bb::fs {

DeferredCreates::DeferredCreates(Send send, std::chrono::milliseconds interval, size_t capacity, const Clock* clock)
    : send_(std::move(send)),
      capacity_(capacity),
      interval_(interval),
      clock_(clock),
      flusher_("bb-deferred", interval, [this] { (void)Flush(); }) {}

DeferredCreates::~DeferredCreates() {
  flusher_.Stop();
  (void)Flush();
}

void DeferredCreates::EraseLocked(std::unordered_map<std::string, Item>::iterator it) {
  items_.erase(it);
  size_.store(items_.size(), std::memory_order_relaxed);
}

void DeferredCreates::Asking(const std::string& path) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = items_.try_emplace(path);
  if (!fresh) return;  // asked already (what this node knows answers lookups, so rarely)
  it->second.state = State::kAsking;
  size_.store(items_.size(), std::memory_order_relaxed);
}

void DeferredCreates::Granted(const std::string& path, NodeId owner, uint64_t grant) {
  {
    std::lock_guard lock(mu_);
    auto it = items_.find(path);
    if (it == items_.end() || it->second.state != State::kAsking) return;
    if (it->second.revoked) {  // settled at the owner before this grant arrived: not this node's
      EraseLocked(it);
      return;
    }
    it->second = Item{owner, State::kRight, false, grant, clock_->MonotonicNs(), {}};
    counters_.granted++;
    if (!Arm()) return;
  }
  flusher_.Wake();
}

void DeferredCreates::Refused(const std::string& path) {
  std::lock_guard lock(mu_);
  auto it = items_.find(path);
  if (it != items_.end() && it->second.state == State::kAsking) EraseLocked(it);
}

bool DeferredCreates::Arm() {
  // The flusher sleeps while nothing waits: one wake per batch, not one per create.
  if (armed_) return false;
  armed_ = true;
  return true;
}

DeferredCreates::Known DeferredCreates::Find(const std::string& path, Metadata* md) const {
  if (size_.load(std::memory_order_relaxed) == 0) return Known::kNothing;
  std::lock_guard lock(mu_);
  auto it = items_.find(path);
  if (it == items_.end() || it->second.state == State::kAsking) return Known::kNothing;
  if (it->second.state == State::kRight) return Known::kAbsent;
  *md = it->second.md;
  return Known::kMade;
}

bool DeferredCreates::Make(const std::string& path, const Metadata& md) {
  if (size_.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard lock(mu_);
  auto it = items_.find(path);
  if (it == items_.end() || it->second.state != State::kRight) return false;
  it->second.state = State::kMade;
  it->second.md = md;
  counters_.made++;
  return true;
}

void DeferredCreates::Forget(const std::string& path) {
  if (size_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  auto it = items_.find(path);
  if (it != items_.end() && it->second.state == State::kRight) EraseLocked(it);
}

void DeferredCreates::ForgetRights(NodeId owner) {
  std::lock_guard lock(mu_);
  for (auto it = items_.begin(); it != items_.end();) {
    auto next = std::next(it);
    if (it->second.owner == owner && it->second.state == State::kRight) EraseLocked(it);
    it = next;
  }
}

bool DeferredCreates::Update(const std::string& path, uint64_t file_id, const MetaUpdate& u) {
  std::lock_guard lock(mu_);
  auto it = items_.find(path);
  if (it == items_.end() || it->second.state != State::kMade || it->second.md.file_id != file_id) return false;
  ApplyUpdate(u, &it->second.md);
  return true;
}

std::optional<Metadata> DeferredCreates::Take(const std::string& path, uint64_t file_id, const MetaUpdate& u) {
  if (size_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  auto it = items_.find(path);
  if (it == items_.end() || it->second.state != State::kMade || it->second.md.file_id != file_id) return std::nullopt;
  // What a hand-over gives from now on is what the request carries.
  ApplyUpdate(u, &it->second.md);
  it->second.state = State::kSending;
  return it->second.md;
}

void DeferredCreates::Taken(const std::string& path, uint64_t file_id, bool ok) {
  bool retry = false;
  {
    std::lock_guard lock(mu_);
    auto it = items_.find(path);
    if (it == items_.end() || it->second.state != State::kSending || it->second.md.file_id != file_id) return;
    if (ok) {
      counters_.with_write++;
      EraseLocked(it);
    } else {
      it->second.state = State::kMade;  // the next batch sends it (the owner takes a repeat as made)
      retry = Arm();
    }
  }
  if (retry) flusher_.Wake();
}

bool DeferredCreates::HandOverLocked(std::unordered_map<std::string, Item>::iterator it, NodeId owner,
                                     std::vector<MadeEntry>* out) {
  // Asking: its grant's node is not known yet, and only its owner settles a name.
  if (it->second.state == State::kAsking) {
    it->second.revoked = true;  // its grant, when it comes, is void
    return false;
  }
  if (it->second.owner != owner) return false;
  if (it->second.state != State::kRight) {
    out->push_back({it->first, it->second.md, it->second.state == State::kSending});
    counters_.handed_over++;
  }
  EraseLocked(it);
  return true;
}

std::vector<MadeEntry> DeferredCreates::HandOver(const std::vector<std::string>& paths, NodeId owner) {
  std::vector<MadeEntry> out;
  std::lock_guard lock(mu_);
  for (const std::string& path : paths) {
    auto it = items_.find(path);
    if (it != items_.end()) HandOverLocked(it, owner, &out);
  }
  return out;
}

std::vector<MadeEntry> DeferredCreates::HandOverDir(const std::string& dir, NodeId owner) {
  std::vector<MadeEntry> out;
  std::lock_guard lock(mu_);
  for (auto it = items_.begin(); it != items_.end();) {
    auto next = std::next(it);
    if (ParentPath(it->first) == dir) HandOverLocked(it, owner, &out);
    it = next;
  }
  return out;
}

std::vector<std::string> DeferredCreates::Waiting(const std::string& dir, NodeId owner) const {
  std::vector<std::string> out;
  if (size_.load(std::memory_order_relaxed) == 0) return out;
  std::lock_guard lock(mu_);
  for (const auto& [path, item] : items_) {
    bool made = item.state == State::kMade || item.state == State::kSending;
    if (made && item.owner == owner && ParentPath(path) == dir) out.push_back(path);
  }
  return out;
}

Status DeferredCreates::SendNow(const std::string& path) {
  if (size_.load(std::memory_order_relaxed) == 0) return Status::Ok();
  NodeId owner;
  MadeEntry entry;
  {
    std::lock_guard lock(mu_);
    auto it = items_.find(path);
    if (it == items_.end() || it->second.state != State::kMade) return Status::Ok();
    it->second.state = State::kSending;
    owner = it->second.owner;
    entry = {path, it->second.md, false};
  }
  auto codes = send_(owner, {entry}, {});
  bool failed = false;
  Status sent = Sent({entry}, codes, &failed);
  if (failed) flusher_.WakeAt(std::chrono::steady_clock::now() + kRetryAfter);  // it waits here again
  BB_RETURN_IF_ERROR(sent);
  return codes->front() == 0 ? Status::Ok() : Status(codes->front(), path + ": its owner refused the entry made here");
}

namespace {

// An entry the owner could not store for now (its store failed or full), not one it refused: it
// waits here and goes again.
}  // namespace

bool EntryRetried(int code) { return code == ENOSPC || code == EIO || code == EAGAIN; }

Status DeferredCreates::Sent(const std::vector<MadeEntry>& sent, const Result<std::vector<int>>& codes, bool* failed) {
  bool ok = codes && codes->size() == sent.size();
  std::lock_guard lock(mu_);
  counters_.batches++;
  for (size_t i = 0; i < sent.size(); ++i) {
    auto it = items_.find(sent[i].path);
    // Handed over meanwhile (or made again): no longer this request's.
    if (it == items_.end() || it->second.state != State::kSending || it->second.md.file_id != sent[i].md.file_id) {
      continue;
    }
    if (!ok || EntryRetried((*codes)[i])) {
      it->second.state = State::kMade;  // sent again later: a repeat counts as made
      counters_.retried++;
      *failed = true;
      continue;
    }
    if ((*codes)[i] != 0) counters_.lost++;
    EraseLocked(it);
  }
  if (ok) return Status::Ok();
  return codes ? Status(EPROTO, "make entries: a reply for another count of entries") : codes.error();
}

std::map<NodeId, DeferredCreates::Batch> DeferredCreates::TakeBatches(bool* rights_left) {
  std::map<NodeId, Batch> batches;
  std::lock_guard lock(mu_);
  armed_ = false;  // what comes from now on wakes the next flush
  const int64_t now = clock_->MonotonicNs();
  const int64_t unused_ns = std::chrono::nanoseconds(interval_).count();
  for (auto it = items_.begin(); it != items_.end();) {
    Item& item = it->second;
    if (item.state == State::kMade) {
      item.state = State::kSending;
      batches[item.owner].made.push_back({it->first, item.md, false});
    } else if (item.state == State::kRight && now - item.since_ns >= unused_ns) {
      batches[item.owner].released.push_back({it->first, item.grant});
      counters_.released++;
      it = items_.erase(it);
      continue;
    } else if (item.state == State::kRight) {
      *rights_left = true;
    }
    ++it;
  }
  size_.store(items_.size(), std::memory_order_relaxed);
  return batches;
}

Status DeferredCreates::Flush() {
  std::lock_guard send_lock(send_mu_);
  bool rights_left = false;
  std::map<NodeId, Batch> batches = TakeBatches(&rights_left);
  Status first;
  bool failed = false;
  for (auto& [owner, batch] : batches) {
    Status s = Sent(batch.made, send_(owner, batch.made, batch.released), &failed);
    if (first.ok()) first = s;
  }
  // Rights too young to give up now go with a later flush; entries whose batch failed, a second
  // from now.
  bool wake = false;
  {
    std::lock_guard lock(mu_);
    if (rights_left) wake = Arm();
  }
  if (wake) flusher_.Wake();
  if (failed) flusher_.WakeAt(std::chrono::steady_clock::now() + kRetryAfter);
  return first;
}

DeferredCreates::Counters DeferredCreates::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

}  // namespace bb::fs
