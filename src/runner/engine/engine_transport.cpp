// SPDX-License-Identifier: Apache-2.0
#include "runner/engine/engine_transport.hpp"

#include <sys/socket.h>

#include <httplib.h>

namespace plb::runner {

engine_transport::engine_transport(std::string socket_path, std::chrono::seconds timeout)
    : socket_(std::move(socket_path)), timeout_(timeout) {}

namespace {

// A client per request: calls are few, and no connection state outlives a call.
void configure(httplib::Client& client, std::chrono::seconds timeout) {
  client.set_address_family(AF_UNIX);
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
}

// dockerd rejects the default Host header (the socket path).
const httplib::Headers headers{{"Host", "docker"}};

}  // namespace

engine_result<engine_reply> engine_transport::request(method m, const std::string& path) const {
  httplib::Client client(socket_, 80);
  configure(client, timeout_);
  const std::string full = std::string("/") + engine_api_version + path;
  httplib::Result r = m == method::get    ? client.Get(full, headers)
                      : m == method::post ? client.Post(full, headers)
                                          : client.Delete(full, headers);
  if (!r)
    return engine_error{engine_error::kind::unreachable, 0,
                        "cannot talk to the Docker daemon at " + socket_ + " (" + httplib::to_string(r.error()) + ")",
                        r.error() == httplib::Error::Read};
  return engine_reply{r->status, r->body};
}

engine_result<int> engine_transport::get_streamed(const std::string& path,
                                                  const std::function<bool(std::string_view)>& sink) const {
  httplib::Client client(socket_, 80);
  configure(client, timeout_);
  int status = 0;
  const httplib::Result r = client.Get(
      std::string("/") + engine_api_version + path, headers,
      [&status](const httplib::Response& response) {
        status = response.status;
        return true;
      },
      // Another status's body is the daemon's message: read past, never kept.
      [&](const char* data, std::size_t size) { return status != 200 || sink(std::string_view(data, size)); });
  if (!r && r.error() != httplib::Error::Canceled)
    return engine_error{engine_error::kind::unreachable, 0,
                        "cannot talk to the Docker daemon at " + socket_ + " (" + httplib::to_string(r.error()) + ")"};
  if (!r) return engine_error{engine_error::kind::bad_reply, status, "the reply was refused as it was read"};
  return status;
}

engine_result<engine_reply> engine_transport::get(const std::string& path) const { return request(method::get, path); }
engine_result<engine_reply> engine_transport::post(const std::string& path) const {
  return request(method::post, path);
}
engine_result<engine_reply> engine_transport::del(const std::string& path) const { return request(method::del, path); }

}  // namespace plb::runner
