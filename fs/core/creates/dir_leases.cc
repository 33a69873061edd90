#include "fs/core/creates/dir_leases.h"

#include "fs/core/placement/path.h"

namespace bb::fs {

DirLeases::Use DirLeases::AskLocked(Lease& l, uint64_t renew) {
  l.state = State::kAsking;
  counters_.asked++;
  return Use{0, true, renew};
}

void DirLeases::PruneLocked(int64_t now_ns) {
  // Past their term they are not used before a renewal: forgetting one here costs that request
  // (its owner keeps it until someone else needs the directory, or it is the oldest there).
  for (auto it = leases_.begin(); it != leases_.end();) {
    bool idle = it->second.state != State::kAsking && it->second.until_ns <= now_ns;
    if (idle) ForgetLocked(it->second);
    it = idle ? leases_.erase(it) : std::next(it);
  }
}

void DirLeases::KnowLocked(Lease& l, std::string name) {
  if (l.full) return;
  if (l.known.insert(std::move(name)).second) known_total_++;
  if (l.known.size() > kMaxKnown || known_total_ > kMaxKnownTotal) {
    ForgetLocked(l);
    l.full = true;
  }
}

void DirLeases::ForgetLocked(Lease& l) {
  known_total_ -= l.known.size();
  std::unordered_set<std::string>().swap(l.known);
}

DirLeases::Use DirLeases::Absent(const std::string& dir, NodeId owner, const std::string& name, int64_t now_ns,
                                 bool may_ask) {
  std::lock_guard lock(mu_);
  auto it = leases_.find(Key(dir, owner));
  if (it == leases_.end()) {
    if (!may_ask || making_.count(dir) != 0) return {};
    if (leases_.size() >= kMaxLeases) PruneLocked(now_ns);
    if (leases_.size() >= kMaxLeases) return {};
    return AskLocked(leases_[Key(dir, owner)], 0);
  }
  Lease& l = it->second;
  switch (l.state) {
    case State::kAsking:
      return {};
    case State::kRefused:
      if (!may_ask || now_ns < l.until_ns || making_.count(dir) != 0) return {};
      ForgetLocked(l);
      l.full = false;
      return AskLocked(l, 0);
    case State::kHeld:
      if (l.full || l.known.count(name) != 0) return {};
      if (now_ns >= l.until_ns) return may_ask ? AskLocked(l, l.grant) : Use{};  // what it knows stays
      counters_.absent++;
      return Use{l.grant, false, 0};
  }
  return {};
}

void DirLeases::Granted(const std::string& dir, NodeId owner, int64_t asked_ns, const DirLease& lease,
                        const std::vector<std::string>& waiting) {
  std::lock_guard lock(mu_);
  auto it = leases_.find(Key(dir, owner));
  if (it == leases_.end() || it->second.state != State::kAsking) return;  // recalled meanwhile
  Lease& l = it->second;
  if (lease.grant == 0) {
    ForgetLocked(l);
    l.state = State::kRefused;
    l.until_ns = asked_ns + kRetryNs;
    counters_.refused++;
    return;
  }
  if (l.grant != 0 && lease.grant == l.grant) {
    counters_.renewed++;
  } else {
    counters_.granted++;
  }
  // Names made since a lease ended are known too: the union is what may be there.
  for (const std::string& name : lease.names) KnowLocked(l, name);
  for (const std::string& path : waiting) KnowLocked(l, std::string(BaseName(path)));
  l.grant = lease.grant;
  l.state = State::kHeld;
  l.until_ns = asked_ns + kTermNs;
}

void DirLeases::Refused(const std::string& dir, NodeId owner, int64_t now_ns) {
  std::lock_guard lock(mu_);
  auto it = leases_.find(Key(dir, owner));
  if (it == leases_.end() || it->second.state != State::kAsking) return;
  ForgetLocked(it->second);
  it->second.state = State::kRefused;
  it->second.until_ns = now_ns + kRetryNs;
  counters_.refused++;
}

void DirLeases::Recalled(const std::string& dir, NodeId owner, int64_t now_ns) {
  std::lock_guard lock(mu_);
  auto it = leases_.find(Key(dir, owner));
  if (it == leases_.end() || it->second.state == State::kRefused) return;
  it->second.state = State::kRefused;
  it->second.until_ns = now_ns + kRetryNs;
  ForgetLocked(it->second);
  counters_.recalled++;
}

void DirLeases::Forget(NodeId owner) {
  std::lock_guard lock(mu_);
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->first.second != owner) {
      ++it;
      continue;
    }
    ForgetLocked(it->second);
    it = leases_.erase(it);
  }
}

DirLeases::Making DirLeases::Make(const std::string& path, NodeId owner) {
  std::string dir(ParentPath(path));
  std::lock_guard lock(mu_);
  making_[dir]++;
  auto it = leases_.find(Key(dir, owner));
  if (it != leases_.end() && it->second.state != State::kRefused) KnowLocked(it->second, std::string(BaseName(path)));
  return Making(this, std::move(dir));
}

void DirLeases::Done(const std::string& dir) {
  std::lock_guard lock(mu_);
  auto it = making_.find(dir);
  if (it != making_.end() && --it->second <= 0) making_.erase(it);
}

DirLeases::Counters DirLeases::counters() const {
  std::lock_guard lock(mu_);
  Counters c = counters_;
  c.held = 0;
  for (const auto& [key, l] : leases_) c.held += l.state == State::kHeld ? 1 : 0;
  return c;
}

}  // namespace bb::fs
