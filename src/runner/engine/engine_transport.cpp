#include "runner/engine/engine_transport.hpp"

#include <sys/socket.h>

#include <httplib.h>

namespace plb::runner {

engine_transport::engine_transport(std::string socket_path, std::chrono::seconds timeout)
    : socket_(std::move(socket_path)), timeout_(timeout) {}

std::optional<engine_reply> engine_transport::request(method m, const std::string& path, std::string& problem) const {
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
  if (!r) {
    problem = "cannot talk to the Docker daemon at " + socket_ + " (" + httplib::to_string(r.error()) + ")";
    return std::nullopt;
  }
  return engine_reply{r->status, r->body};
}

std::optional<engine_reply> engine_transport::get(const std::string& path, std::string& problem) const {
  return request(method::get, path, problem);
}
std::optional<engine_reply> engine_transport::post(const std::string& path, std::string& problem) const {
  return request(method::post, path, problem);
}
std::optional<engine_reply> engine_transport::del(const std::string& path, std::string& problem) const {
  return request(method::del, path, problem);
}

}  // namespace plb::runner
