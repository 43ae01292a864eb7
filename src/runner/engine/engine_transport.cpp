// SPDX-License-Identifier: Apache-2.0
#include "runner/engine/engine_transport.hpp"

#include <sys/socket.h>

#include <httplib.h>

namespace plb::runner {

engine_transport::engine_transport(std::string socket_path, std::chrono::seconds timeout)
    : socket_(std::move(socket_path)), timeout_(timeout) {}

engine_result<engine_reply> engine_transport::request(method m, const std::string& path) const {
  // A client per request: calls are few, and no connection state outlives a call.
  httplib::Client client(socket_, 80);
  client.set_address_family(AF_UNIX);
  client.set_connection_timeout(timeout_);
  client.set_read_timeout(timeout_);
  client.set_write_timeout(timeout_);
  // dockerd rejects the default Host header (the socket path).
  const httplib::Headers headers{{"Host", "docker"}};
  const std::string full = std::string("/") + engine_api_version + path;
  httplib::Result r = m == method::get    ? client.Get(full, headers)
                      : m == method::post ? client.Post(full, headers)
                                          : client.Delete(full, headers);
  if (!r)
    return engine_error{engine_error::kind::unreachable, 0,
                        "cannot talk to the Docker daemon at " + socket_ + " (" + httplib::to_string(r.error()) + ")"};
  return engine_reply{r->status, r->body};
}

engine_result<engine_reply> engine_transport::get(const std::string& path) const { return request(method::get, path); }
engine_result<engine_reply> engine_transport::post(const std::string& path) const {
  return request(method::post, path);
}
engine_result<engine_reply> engine_transport::del(const std::string& path) const { return request(method::del, path); }

}  // namespace plb::runner
