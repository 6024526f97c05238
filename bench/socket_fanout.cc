#include "socket_fanout.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "cosimo/common/process.h"
#include "harness.h"

namespace cosimo::bench {
namespace {

// Moves exactly `size` bytes with `io` (read or write on one descriptor), retrying partial and
// interrupted calls; false at the end of the stream or on an error.
template <typename Byte, typename Io>
bool Fully(Byte* data, size_t size, Io io) {
  while (size > 0) {
    const ssize_t n = io(data, size);
    if (n <= 0 && !(n < 0 && errno == EINTR)) return false;
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
    }
  }
  return true;
}
bool ReadFully(int fd, char* data, size_t size) {
  return Fully(data, size, [fd](char* p, size_t n) { return read(fd, p, n); });
}
bool WriteFully(int fd, const char* data, size_t size) {
  return Fully(data, size, [fd](const char* p, size_t n) { return write(fd, p, n); });
}

// A connected pair of TCP loopback sockets with TCP_NODELAY on both ends; false on failure.
bool TcpPair(int fds[2]) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return false;
  absl::Cleanup close_listener = [listener] { close(listener); };
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return false;
  }
  fds[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fds[1] < 0) return false;
  if (connect(fds[1], reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      (fds[0] = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) < 0) {
    close(fds[1]);
    return false;
  }
  const int one = 1;
  for (int k = 0; k < 2; ++k) setsockopt(fds[k], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return true;
}

}  // namespace

// This process is a fresh child with no gRPC threads, so forking it is safe; each peer only
// reads, writes and exits.
int RunSocketFanout(int count, int peers, PingResult* result) {
  const MessageSizes sizes = StepMessageSizes(1, 1);
  std::vector<int> fds;
  std::vector<pid_t> peer_pids;
  absl::Cleanup stop = [&] {
    for (int fd : fds) close(fd);  // each peer's read ends, and it exits
    for (pid_t pid : peer_pids) waitpid(pid, nullptr, 0);
  };
  for (int k = 0; k < peers; ++k) {
    int pair[2] = {-1, -1};
    if (!TcpPair(pair)) return 2;
    const pid_t pid = fork();
    if (pid < 0) {
      close(pair[0]);
      close(pair[1]);
      return 2;
    }
    if (pid == 0) {
      for (int fd : fds) close(fd);
      close(pair[0]);
      if (const int cpu = PeerCpu(k); cpu >= 0) PinToCpus({cpu}, "socket peer").IgnoreError();
      std::vector<char> command(sizes.command), reply(sizes.reply, 'r');
      while (ReadFully(pair[1], command.data(), command.size()) &&
             WriteFully(pair[1], reply.data(), reply.size())) {
      }
      _exit(0);
    }
    close(pair[1]);
    fds.push_back(pair[0]);
    peer_pids.push_back(pid);
  }
  const int poller = epoll_create1(EPOLL_CLOEXEC);
  if (poller < 0) return 2;
  absl::Cleanup close_poller = [poller] { close(poller); };
  for (int k = 0; k < peers; ++k) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u32 = static_cast<uint32_t>(k);
    if (epoll_ctl(poller, EPOLL_CTL_ADD, fds[static_cast<size_t>(k)], &event) != 0) return 2;
  }
  std::vector<char> command(sizes.command, 'c'), reply(sizes.reply);
  std::vector<epoll_event> events(static_cast<size_t>(peers));
  std::vector<size_t> received(static_cast<size_t>(peers));
  const int warmup = std::min(500, count);
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(count));
  Usage usage, peer_usage;
  std::unique_ptr<Usage::Span> span, peer_span;
  for (int i = 0; i < warmup + count; ++i) {
    if (i == warmup) {
      span = std::make_unique<Usage::Span>(std::vector<pid_t>{0}, &usage);
      peer_span = std::make_unique<Usage::Span>(peer_pids, &peer_usage);
    }
    const int64_t start = NowNs();
    for (int fd : fds) {
      if (!WriteFully(fd, command.data(), command.size())) return 3;
    }
    std::fill(received.begin(), received.end(), 0);
    // Every reply of this round, in whatever order the peers answer.
    for (int pending = peers; pending > 0;) {
      const int ready = epoll_wait(poller, events.data(), peers, 60000);
      if (ready <= 0 && !(ready < 0 && errno == EINTR)) return 3;
      for (int e = 0; e < ready; ++e) {
        const size_t k = events[static_cast<size_t>(e)].data.u32;
        const ssize_t n = read(fds[k], reply.data(), reply.size() - received[k]);
        if (n <= 0) return 3;
        received[k] += static_cast<size_t>(n);
        if (received[k] == reply.size()) --pending;
      }
    }
    if (i >= warmup) samples.push_back(static_cast<double>(NowNs() - start));
  }
  span->Stop(static_cast<int64_t>(samples.size()));
  peer_span->Stop(static_cast<int64_t>(samples.size()) * peers);  // per peer and round
  result->samples = std::move(samples);
  SetCosts(usage, peer_usage, peers, result);
  return 0;
}

}  // namespace cosimo::bench
