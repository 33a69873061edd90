#include "fs/core/data/chunk_removals.h"

#include <algorithm>

namespace bb::fs {
namespace {

constexpr std::string_view kJournalPrefix = "Schunk_rm/";
constexpr size_t kJournalKeySize = kJournalPrefix.size() + 4 + 8;

// Fixed width (the key's length tells a well-formed one), most significant byte first.
void AppendBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t ReadBigEndian(std::string_view in) {
  uint64_t v = 0;
  for (char c : in) v = v << 8 | static_cast<uint8_t>(c);
  return v;
}

}  // namespace

std::string ChunkRemovals::JournalKey(NodeId node, uint64_t file_id) {
  std::string key(kJournalPrefix);
  AppendBigEndian(&key, node, 4);
  AppendBigEndian(&key, file_id, 8);
  return key;
}

ChunkRemovals::ChunkRemovals(Send send, std::chrono::milliseconds interval, size_t capacity, MetaStore* journal)
    : send_(std::move(send)),
      capacity_(capacity),
      journal_(journal),
      flusher_("bb-chunk-rm", interval, [this] { (void)Flush(); }) {
  LoadJournal();
}

ChunkRemovals::~ChunkRemovals() {
  flusher_.Stop();
  (void)Flush();
}

// What an earlier run noted and its nodes did not confirm: due at once.
void ChunkRemovals::LoadJournal() {
  if (journal_ == nullptr) return;
  std::string after;
  size_t loaded = 0;
  for (;;) {
    auto page = journal_->Scan(kJournalPrefix, after, 4096);
    if (!page || page->empty()) break;
    std::lock_guard lock(mu_);
    for (const auto& [key, value] : *page) {
      if (key.size() != kJournalKeySize || retry_count_ >= capacity_) continue;  // the rest wait for a later start
      std::string_view k(key);
      k.remove_prefix(kJournalPrefix.size());
      retry_[static_cast<NodeId>(ReadBigEndian(k.substr(0, 4)))].push_back(ReadBigEndian(k.substr(4)));
      ++retry_count_;
      ++loaded;
    }
    after = page->back().first.substr(kJournalPrefix.size());
  }
  if (loaded > 0) flusher_.Wake();
}

bool ChunkRemovals::Note(NodeId node, uint64_t file_id) {
  if (pending() >= capacity_) return false;
  // Kept before the caller's unlink returns (the caller removes the chunks itself when the
  // journal cannot take it). Outside mu_, so that concurrent unlinks share LevelDB's writes.
  if (journal_ != nullptr && !journal_->Put(JournalKey(node, file_id), {}).ok()) return false;
  bool first;
  {
    std::lock_guard lock(mu_);
    if (pending_count_ >= capacity_) {
      Forget(node, {file_id});
      return false;
    }
    first = pending_count_ == 0;
    pending_[node].push_back(file_id);
    ++pending_count_;
  }
  noted_.fetch_add(1, std::memory_order_relaxed);
  if (first) flusher_.Wake();
  return true;
}

void ChunkRemovals::Forget(NodeId node, const std::vector<uint64_t>& ids) {
  if (journal_ == nullptr) return;
  WriteBatch done;
  for (uint64_t id : ids) done.Delete(JournalKey(node, id));
  (void)journal_->Write(done, false);  // left behind: sent again at the next start, harmlessly
}

Status ChunkRemovals::Flush() {
  std::lock_guard send_lock(send_mu_);
  Removals all;
  bool retried = false;  // failed removals due again are in `all`
  bool waiting;          // failed removals not due yet wait for their time
  {
    std::lock_guard lock(mu_);
    all.swap(pending_);
    pending_count_ = 0;
    if (retry_count_ > 0 && std::chrono::steady_clock::now() >= retry_at_) {
      retried = true;
      for (auto& [node, ids] : retry_) all[node].insert(all[node].end(), ids.begin(), ids.end());
      retry_.clear();
      retry_count_ = 0;
    }
    waiting = retry_count_ > 0;
  }
  Status first;
  bool failed = false;
  for (const auto& [node, ids] : all) {
    for (size_t at = 0; at < ids.size(); at += kMaxBatch) {
      std::vector<uint64_t> batch(ids.begin() + at, ids.begin() + std::min(ids.size(), at + kMaxBatch));
      batches_.fetch_add(1, std::memory_order_relaxed);
      Status s = send_(node, batch);
      if (s.ok()) {
        Forget(node, batch);
        continue;
      }
      failed_.fetch_add(batch.size(), std::memory_order_relaxed);
      if (first.ok()) first = s.Annotate("node " + std::to_string(node));
      if (journal_ == nullptr) continue;
      failed = true;
      std::lock_guard lock(mu_);
      // Past capacity, the journal alone keeps the rest, for the next start.
      size_t kept = std::min(batch.size(), capacity_ - std::min(capacity_, retry_count_));
      retry_[node].insert(retry_[node].end(), batch.begin(), batch.begin() + static_cast<ptrdiff_t>(kept));
      retry_count_ += kept;
    }
  }
  if (failed) {
    std::chrono::steady_clock::time_point at;
    {
      std::lock_guard lock(mu_);
      // Sent again failed: wait longer next time. A first failure joins the retries already
      // due at some time, or waits the current delay.
      if (retried) retry_after_ = std::min(2 * retry_after_, kRetryMax);
      if (retried || !waiting) retry_at_ = std::chrono::steady_clock::now() + retry_after_;
      at = retry_at_;
    }
    flusher_.WakeAt(at);  // sent again though nothing else comes
  } else if (retried) {
    std::lock_guard lock(mu_);
    if (retry_count_ == 0) retry_after_ = kRetryAfter;
  }
  return first;
}

size_t ChunkRemovals::pending() const {
  std::lock_guard lock(mu_);
  return pending_count_;
}

size_t ChunkRemovals::retrying() const {
  std::lock_guard lock(mu_);
  return retry_count_;
}

ChunkRemovals::Counters ChunkRemovals::counters() const {
  return {noted_.load(std::memory_order_relaxed), batches_.load(std::memory_order_relaxed),
          failed_.load(std::memory_order_relaxed)};
}

}  // namespace bb::fs
