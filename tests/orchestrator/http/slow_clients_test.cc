// Issue 41 item 9: slow clients must not stall the HTTP port. The attacks of the issue, made
// here with raw sockets against the port's server (orchestrator/src/http/mhd_server.h) on a
// loopback port: half-sent requests that never end, a request head drip-fed a line at a time,
// more connections than one client may hold, more than the port takes in all.
#include "orchestrator/src/http/mhd_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace cosimo::orchestrator::http {
namespace {

using namespace std::chrono_literals;

// A client socket connected to 127.0.0.1:port; closed when it goes.
class Socket {
 public:
  explicit Socket(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() { ::close(fd_); }

  bool connected() const { return connected_; }
  bool Send(const std::string& text) {
    return ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // What arrives within `wait` until the answer's body is in (an answer with Content-Length)
  // or the server closes; closed() then says which.
  std::string ReadAnswer(std::chrono::milliseconds wait) {
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < deadline && !Complete(text)) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <= 0) break;
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      text.append(buffer, static_cast<size_t>(n));
    }
    return text;
  }
  // Whether the server closed the connection within `wait` (read returns end of stream or a
  // reset), reading and dropping anything it sent before.
  bool ClosedWithin(std::chrono::milliseconds wait) {
    ReadAnswer(wait);
    return closed_;
  }

 private:
  // A whole answer: its head and as many body bytes as its Content-Length says.
  static bool Complete(const std::string& text) {
    const size_t head = text.find("\r\n\r\n");
    if (head == std::string::npos) return false;
    const size_t at = text.find("Content-Length: ");
    if (at == std::string::npos || at > head) return true;
    const size_t length = std::stoul(text.substr(at + 16));
    return text.size() >= head + 4 + length;
  }

  int fd_;
  bool connected_ = false;
  bool closed_ = false;
};

const std::string kRequest = "GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n";

class SlowClientsTest : public ::testing::Test {
 protected:
  void Serve(HttpLimits limits) {
    server_ = MhdServer::Create(limits);
    server_->Get("/ping", [](const HttpRequest&, HttpResponse& res) { res.body = "pong\n"; });
    const absl::Status started = server_->Start("test", "127.0.0.1", 0, {});
    ASSERT_TRUE(started.ok()) << started;
    ASSERT_GT(server_->port(), 0);
  }
  // A request on a new connection: true when it is answered 200 "pong" within `wait`.
  bool Ping(std::chrono::milliseconds wait = 10s) {
    Socket s(server_->port());
    if (!s.connected() || !s.Send(kRequest)) return false;
    const std::string answer = s.ReadAnswer(wait);
    return answer.rfind("HTTP/1.1 200", 0) == 0 &&
           answer.find("\r\n\r\npong\n") != std::string::npos;
  }

  std::unique_ptr<MhdServer> server_;
};

// The first attack: idle half-sent requests (a head without its end) took the port's
// threads, delaying everyone else by seconds. Sixteen of them, more than the port has threads
// and than one client may hold, and a request from the same address is still answered while
// all of them are open (the server closes those beyond the per-client bound, not the others).
TEST_F(SlowClientsTest, HalfSentRequestsDoNotHoldThePort) {
  HttpLimits limits;
  limits.max_connections_per_client = 32;
  limits.request_timeout = 60s;
  Serve(limits);
  std::vector<std::unique_ptr<Socket>> idle;
  for (int i = 0; i < 16; ++i) {
    idle.push_back(std::make_unique<Socket>(server_->port()));
    ASSERT_TRUE(idle.back()->connected());
    ASSERT_TRUE(idle.back()->Send("GET /ping HTTP/1.1\r\nHost: localhost\r\n"));
  }
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Ping()) << "request " << i;
  // They are still open: the answers did not come from closing them.
  for (auto& s : idle) EXPECT_FALSE(s->ClosedWithin(1ms));
}

// The second attack: a head sent a line at a time, each soon after the last, kept the page from
// answering at all. The connection is closed once it has had request_timeout to send its head,
// however busy it keeps.
TEST_F(SlowClientsTest, ADripFedRequestIsClosedAtTheRequestTimeout) {
  HttpLimits limits;
  limits.request_timeout = 1s;
  Serve(limits);
  Socket drip(server_->port());
  ASSERT_TRUE(drip.Send("GET /ping HTTP/1.1\r\n"));
  bool closed = false;
  for (int line = 0; line < 40 && !closed; ++line) {
    if (!drip.Send("X-Drip-" + std::to_string(line) + ": 1\r\n")) {
      closed = true;
      break;
    }
    closed = drip.ClosedWithin(200ms);
  }
  EXPECT_TRUE(closed) << "a request drip-fed for 8 s was still open (request timeout 1 s)";
  EXPECT_TRUE(Ping());
}

// The timeout counts the wait for a head only: a kept-alive connection answers request after
// request, and is let go once it stays idle for the timeout.
TEST_F(SlowClientsTest, AKeptAliveConnectionAnswersEachRequest) {
  HttpLimits limits;
  limits.request_timeout = 1s;
  Serve(limits);
  Socket s(server_->port());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(s.Send(kRequest));
    const std::string answer = s.ReadAnswer(10s);
    EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
    std::this_thread::sleep_for(300ms);
  }
  EXPECT_TRUE(s.ClosedWithin(10s));
}

// Beyond max_connections_per_client, a client's new connection is closed at once; one of its
// connections closing makes room again.
TEST_F(SlowClientsTest, AClientBeyondItsBoundIsClosed) {
  HttpLimits limits;
  limits.max_connections_per_client = 2;
  limits.request_timeout = 60s;
  Serve(limits);
  auto first = std::make_unique<Socket>(server_->port());
  Socket second(server_->port());
  ASSERT_TRUE(first->connected() && second.connected());
  // Known to the server before the third arrives.
  std::this_thread::sleep_for(200ms);
  Socket third(server_->port());
  third.Send(kRequest);
  EXPECT_TRUE(third.ClosedWithin(5s));
  first.reset();
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(Ping());
}

// Beyond max_connections in all, a new connection waits (in the listen backlog) and is answered
// once one closes, instead of being refused.
TEST_F(SlowClientsTest, BeyondTheTotalBoundAConnectionWaitsItsTurn) {
  HttpLimits limits;
  limits.max_connections = 2;
  limits.threads = 1;
  limits.request_timeout = 60s;
  Serve(limits);
  auto first = std::make_unique<Socket>(server_->port());
  Socket second(server_->port());
  std::this_thread::sleep_for(200ms);
  Socket third(server_->port());
  ASSERT_TRUE(third.Send(kRequest));
  EXPECT_EQ(third.ReadAnswer(1s), "") << "answered beyond the bound of 2 connections";
  first.reset();
  const std::string answer = third.ReadAnswer(10s);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
}

}  // namespace
}  // namespace cosimo::orchestrator::http
