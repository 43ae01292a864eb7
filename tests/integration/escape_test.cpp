// SPDX-License-Identifier: Apache-2.0
// Adversarial scripts against the real sandbox. Each script attempts one thing; if the attempt
// works it prints valid predictions (the run would then succeed and the test fail), and if the
// control holds it exits 42. So every case asserts, from outside, that the attack failed *and*
// that the tool reported it as it should: script_failed with status 42, one line on stderr with
// no untrusted text, nothing written, no container left (the fixture's TearDown).
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include <boost/json.hpp>

#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/verdict.hpp"
#include "runner/engine/engine_transport.hpp"
#include "sandbox_fixture.hpp"

namespace plb::test {
namespace {

using sandbox::verdict;

// What a script prints when an attack worked: a valid document, so the run "succeeds".
constexpr const char* prelude = R"(import json, os, sys
def breached(what):
    print(json.dumps({"predictions": [0.0, 0.0]}))
    sys.exit(0)
def contained():
    sys.exit(42)
)";

class Escape : public SandboxTest {
 protected:
  tool_result attack(const std::string& body, const std::vector<std::string>& extra = {},
                     const std::vector<std::string>& env = default_environment()) {
    const auto script = write("model.py", std::string(prelude) + body);
    const auto data = write("data.csv", "id,a,b\nr1,1,2\nr2,3,4\n");
    return run(score_args(script, data, {"a", "b"}, path("out.csv"), extra), env);
  }

  void expect_verdict(const tool_result& r, verdict v, const std::string& phrase) {
    EXPECT_EQ(r.exit_code, sandbox::exit_code(v)) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("plb-sandbox: " + std::string(sandbox::name(v)) + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(phrase), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("CANARY"), std::string::npos) << "untrusted text leaked: " << r.err;
    EXPECT_FALSE(exists(path("out.csv")));
    EXPECT_FALSE(exists(path("out.csv.sandbox.json")));
  }

  void expect_contained(const tool_result& r) {
    expect_verdict(r, verdict::script_failed, "status 42");
    if (r.exit_code == 0) ADD_FAILURE() << "the attack worked: the script reported a breach";
  }
};

// ---- filesystem -------------------------------------------------------------------------------

TEST_F(Escape, FilesystemRootIsReadOnly) {
  expect_contained(attack(R"(
for p in ["/x", "/etc/passwd", "/usr/local/bin/python", "/var/tmp/x", "/home/x", "/root/x", "/run/x", "/sandbox/x"]:
    try:
        with open(p, "a") as f:
            f.write("CANARY")
        breached(p)
    except OSError:
        pass
contained()
)"));
}

TEST_F(Escape, FilesystemScriptIsReadOnly) {
  expect_contained(attack(R"(
try:
    open("/sandbox/model.py", "a").write("CANARY")
    breached("script")
except OSError:
    pass
try:
    os.chmod("/sandbox/model.py", 0o777)
    breached("chmod")
except OSError:
    pass
contained()
)"));
}

TEST_F(Escape, FilesystemScratchIsBoundedToItsSize) {
  // /tmp takes writes, but no more than the 16 MiB scratch size.
  expect_contained(attack(R"(
written = 0
try:
    with open("/tmp/fill", "wb") as f:
        for _ in range(64):
            f.write(b"\0" * (1 << 20))
            f.flush()
            written += 1 << 20
except OSError:
    pass
if written == 0 or written > 16 * (1 << 20):
    breached(written)
contained()
)"));
}

TEST_F(Escape, FilesystemScratchIsNoexec) {
  expect_contained(attack(R"(
import shutil, subprocess
p = "/tmp/run.sh"
shutil.copy("/usr/bin/env", "/tmp/env-copy")
os.chmod("/tmp/env-copy", 0o755)
try:
    subprocess.run(["/tmp/env-copy"], check=False)
    breached("exec")
except PermissionError:
    pass
contained()
)"));
}

TEST_F(Escape, FilesystemFileSizeLimitHolds) {
  expect_contained(attack(R"(
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
if soft != 16 * (1 << 20) or hard != soft:
    breached((soft, hard))
try:
    with open("/tmp/big", "wb") as f:
        f.seek(16 * (1 << 20))
        f.write(b"x")
    breached("wrote past RLIMIT_FSIZE")
except OSError:
    pass
contained()
)"));
}

TEST_F(Escape, FilesystemHostFilesAreInvisible) {
  const auto data_path = path("data.csv");
  expect_contained(attack(R"(
for p in [")" + data_path +
                          R"(", ")" + dir_ + R"(", "/var/lib/plb-sandbox", "/var/run/docker.sock",
          "/run/docker.sock", "/etc/docker", "/root/.docker", "/proc/1/root)" +
                          dir_ + R"("]:
    if os.path.exists(p):
        breached(p)
table = [l.split() for l in open("/proc/mounts")]
mounts = [m[1] for m in table]
expected = {"/", "/dev", "/sys", "/tmp", "/proc", "/dev/pts", "/sandbox/model.py",
            "/etc/hosts", "/etc/hostname", "/etc/resolv.conf"}
# gVisor (20240729 on) mounts its own emulated cgroup file systems. They are accepted only as the
# sandbox's internal view: gVisor's "none" cgroup mounts whose process lists hold guest PIDs only
# (a host cgroup would list host PIDs, absent from the guest's /proc) and whose memory usage is
# within the sandbox's own limit (the host's would be far larger).
cgroups = {m[1] for m in table if m[1] == "/sys/fs/cgroup" or m[1].startswith("/sys/fs/cgroup/")}
for m in table:
    if m[1] in cgroups and m[1] != "/sys/fs/cgroup" and (m[0], m[2]) != ("none", "cgroup"):
        breached(m)
for c in cgroups - {"/sys/fs/cgroup"}:
    procs = c + "/cgroup.procs"
    if os.path.exists(procs):
        for pid in open(procs).read().split():
            if not os.path.exists("/proc/" + pid):
                breached(procs + " lists a PID the guest cannot see: " + pid)
if "/sys/fs/cgroup/memory" in cgroups:
    if int(open("/sys/fs/cgroup/memory/memory.usage_in_bytes").read()) > (512 << 20):
        breached("the memory cgroup shows more than the sandbox")
if set(mounts) - expected - cgroups:
    breached(sorted(set(mounts) - expected - cgroups))
contained()
)"));
}

// ---- network ----------------------------------------------------------------------------------

// A TCP canary on an address of this host. It counts connections: none may arrive.
class canary_server {
 public:
  explicit canary_server(const std::string& address) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ::inet_pton(AF_INET, address.c_str(), &a.sin_addr);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      while (true) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        ++connections_;
        ::close(c);
      }
    });
  }
  ~canary_server() {
    if (fd_ >= 0) {
      ::shutdown(fd_, SHUT_RDWR);
      ::close(fd_);
    }
    if (thread_.joinable()) thread_.join();
  }
  bool listening() const { return fd_ >= 0; }
  int port() const { return port_; }
  int connections() const { return connections_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

std::string docker_gateway() {
  const runner::engine_transport engine;  // a raw answer: the tool has no call for networks
  auto reply = engine.get("/networks/bridge");
  for (int i = 0; i < 10 && (!reply || reply->status != 200); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    reply = engine.get("/networks/bridge");
  }
  if (!reply || reply->status != 200) {
    ADD_FAILURE() << "GET /networks/bridge: "
                  << (reply ? "HTTP " + std::to_string(reply->status) : reply.error().message());
    return {};
  }
  const auto v = boost::json::parse(reply->body);
  for (const auto& c : v.at("IPAM").at("Config").as_array())
    if (const auto* g = c.as_object().if_contains("Gateway")) return std::string(g->as_string());
  // A daemon that has not restarted since it made the bridge lists no Gateway (Docker 20.10): the
  // gateway is then the bridge interface's own address.
  std::string bridge = "docker0";
  if (const auto* o = v.at("Options").if_object())
    if (const auto* n = o->if_contains("com.docker.network.bridge.name"); n && n->is_string())
      bridge = std::string(n->as_string());
  ifaddrs* all = nullptr;
  std::string address;
  if (::getifaddrs(&all) == 0) {
    for (const ifaddrs* a = all; a && address.empty(); a = a->ifa_next) {
      if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || bridge != a->ifa_name) continue;
      char text[INET_ADDRSTRLEN];
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) address = text;
    }
    ::freeifaddrs(all);
  }
  return address;
}

TEST_F(Escape, NetworkOnlyLoopbackExists) {
  expect_contained(attack(R"(
import socket
names = [n for _, n in socket.if_nameindex()]
if names != ["lo"]:
    breached(names)
contained()
)"));
}

TEST_F(Escape, NetworkCanaryOnGatewayAndLoopbackNeverReached) {
  const std::string gateway = docker_gateway();
  ASSERT_FALSE(gateway.empty()) << "no docker bridge gateway";
  canary_server on_gateway(gateway), on_loopback("127.0.0.1");
  ASSERT_TRUE(on_gateway.listening());
  ASSERT_TRUE(on_loopback.listening());
  const auto r = attack(R"(
import socket
for host, port in [(")" +
                        gateway + R"(", )" + std::to_string(on_gateway.port()) + R"(),
                   ("127.0.0.1", )" +
                        std::to_string(on_loopback.port()) + R"()]:
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((host, port))
        breached(host)
    except OSError:
        pass
    finally:
        s.close()
contained()
)");
  expect_contained(r);
  EXPECT_EQ(on_gateway.connections(), 0);
  EXPECT_EQ(on_loopback.connections(), 0);
}

TEST_F(Escape, NetworkDnsFails) {
  expect_contained(attack(R"(
import socket
try:
    socket.getaddrinfo("plb-sandbox-canary.test", 80)
    breached("resolved")
except OSError:
    pass
servers = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")]
for ns in servers or ["127.0.0.53"]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendto(b"\0", (ns, 53))
        breached("udp to " + ns)
    except OSError:
        pass
contained()
)"));
}

// ---- identity ---------------------------------------------------------------------------------

TEST_F(Escape, IdentityNonRootNoCapabilitiesNoNewPrivileges) {
  expect_contained(attack(R"(
import ctypes
if os.getuid() == 0 or os.geteuid() == 0 or os.getgid() == 0 or 0 in os.getgroups():
    breached("root")
caps = {l.split(":")[0]: int(l.split()[1], 16) for l in open("/proc/self/status") if l.startswith("Cap")}
if caps.get("CapEff") != 0 or caps.get("CapPrm") != 0 or caps.get("CapBnd", 1) != 0:
    breached(caps)
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(39, 0, 0, 0, 0) != 1:  # PR_GET_NO_NEW_PRIVS
    breached("no_new_privs")
try:
    os.setuid(0)
    breached("setuid")
except PermissionError:
    pass
contained()
)"));
}

TEST_F(Escape, IdentityGuestKernelIsGvisorAndNoDockerSocket) {
  utsname u{};
  ::uname(&u);
  expect_contained(attack(std::string(R"(
if os.uname().release == ")") +
                          u.release + R"(":
    breached("host kernel")
for p in ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock"]:
    if os.path.exists(p):
        breached(p)
contained()
)"));
}

// ---- host environment -------------------------------------------------------------------------

TEST_F(Escape, EnvironmentHostVariablesAreInvisible) {
  auto env = default_environment();
  env.push_back("PLB_SECRET_CANARY=hunter2-host-secret");
  expect_contained(attack(R"(
import glob
if any("hunter2" in k or "hunter2" in v for k, v in os.environ.items()):
    breached("environ")
if set(os.environ) - {"LC_CTYPE"}:
    breached(sorted(os.environ))
for p in glob.glob("/proc/*/environ"):
    try:
        if b"hunter2" in open(p, "rb").read():
            breached(p)
    except OSError:
        pass
contained()
)",
                          {}, env));
}

TEST_F(Escape, EnvironmentImageVariablesAreInvisible) {
  // A derived image with ENV baked in: the entrypoint's `env -i` must drop it.
  const runner::docker_engine engine;
  const std::string tmp = "plb-sandbox-envimage-" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("docker create --name " + tmp + " " + image_ + " /bin/true >/dev/null").c_str()), 0);
  const std::string change = "ENV IMAGE_SECRET=hunter3-image-secret";
  FILE* p = ::popen(("docker commit --change '" + change + "' " + tmp + " 2>/dev/null").c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[128] = {};
  ASSERT_NE(std::fgets(buf, sizeof buf, p), nullptr);
  ::pclose(p);
  std::system(("docker rm -f " + tmp + " >/dev/null").c_str());
  std::string derived = buf;
  while (!derived.empty() && (derived.back() == '\n')) derived.pop_back();
  ASSERT_EQ(derived.rfind("sha256:", 0), 0u) << derived;
  const std::string original = image_;
  image_ = derived;
  const auto r = attack(R"(
if "IMAGE_SECRET" in os.environ or any("hunter3" in v for v in os.environ.values()):
    breached("image env")
contained()
)");
  image_ = original;
  std::system(("docker image rm -f " + derived + " >/dev/null 2>&1").c_str());
  expect_contained(r);
}

// ---- IPC --------------------------------------------------------------------------------------

TEST_F(Escape, IpcNoSharedMemoryWithTheHost) {
  const std::string host_file = "/dev/shm/plb-sandbox-canary-" + std::to_string(::getpid());
  { std::ofstream(host_file) << "host"; }
  const std::string guest_name = "plb-sandbox-guest-" + std::to_string(::getpid());
  const auto r = attack(R"(
if os.path.exists(")" + host_file +
                        R"("):
    breached("sees host shm")
try:
    with open("/dev/shm/)" +
                        guest_name + R"(", "w") as f:
        f.write("guest")
except OSError:
    pass
contained()
)");
  std::filesystem::remove(host_file);
  expect_contained(r);
  EXPECT_FALSE(std::filesystem::exists("/dev/shm/" + guest_name)) << "a guest write reached the host's /dev/shm";
}

// ---- output floods ----------------------------------------------------------------------------

TEST_F(Escape, FloodStdout) {
  const auto r = attack("while True:\n    sys.stdout.write('CANARY' * 10000)\n");
  // The verdict says the cap ended it: the wall time (30 s) would have said timeout. No clock here.
  expect_verdict(r, verdict::output_cap_exceeded, "4 MiB");
  EXPECT_LT(r.max_rss_kib, 128 * 1024) << "the tool's memory must not follow the flood";
}

TEST_F(Escape, FloodStderrCarryingASecret) {
  const auto r = attack("while True:\n    sys.stderr.write('CANARY-stderr-secret ' * 1000)\n");
  expect_verdict(r, verdict::output_cap_exceeded, "4 MiB");
  EXPECT_EQ(r.err.find("stderr-secret"), std::string::npos);
  EXPECT_LT(r.max_rss_kib, 128 * 1024);
}

TEST_F(Escape, FloodBothStreams) {
  const auto r = attack("while True:\n    sys.stdout.write('CANARY' * 5000)\n    sys.stderr.write('CANARY' * 5000)\n");
  expect_verdict(r, verdict::output_cap_exceeded, "4 MiB");
  EXPECT_LT(r.max_rss_kib, 128 * 1024);
}

// ---- timeouts: the script's own time ends at the limit; the whole run within the start allowance,
// the limit and a grace for the kill and the removal -------------------------------------------

constexpr double timeout_grace_seconds = 8.0;  // documented in SECURITY.md
constexpr double kill_seconds = 5.0;           // the script's own time past its limit: the kill's latency

struct hang_case {
  const char* name;
  const char* body;
};
void PrintTo(const hang_case& c, std::ostream* os) { *os << c.name; }

class Hang : public Escape, public ::testing::WithParamInterface<hang_case> {};

TEST_P(Hang, EndsAtTheWallTime) {
  const auto r = attack(GetParam().body, {"--seconds", "3", "--json"});
  EXPECT_EQ(r.exit_code, sandbox::exit_code(verdict::timeout)) << r.err;
  EXPECT_EQ(r.err.rfind("plb-sandbox: timeout: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("3 s wall time"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("CANARY"), std::string::npos) << "untrusted text leaked: " << r.err;
  EXPECT_FALSE(exists(path("out.csv")));
  // The script's own time (from its container's start, run_clock.hpp) is the limit and the kill;
  // the host's start-up is recorded apart and bounded by its own allowance.
  boost::json::error_code ec;
  const auto summary = boost::json::parse(r.out, ec);
  ASSERT_FALSE(ec) << r.out;
  const auto& usage = summary.at("usage").as_object();
  const double script = usage.at("wall_seconds").to_number<double>();
  const double startup = usage.at("startup_seconds").to_number<double>();
  std::cout << "script " << script << " s, start-up " << startup << " s, whole run " << r.seconds << " s\n";
  EXPECT_GE(script, 3.0);
  EXPECT_LT(script, 3 + kill_seconds);
  EXPECT_GT(startup, 0);
  EXPECT_LT(r.seconds, static_cast<double>(sandbox::SandboxLimits{}.start_seconds) + 3 + timeout_grace_seconds);
}

const hang_case hangs[] = {
    {"sleep", "import time\ntime.sleep(600)\n"},
    {"cpu_spin", "while True:\n    pass\n"},
    {"print_then_hang", "print(json.dumps({'predictions': [1, 2]}), flush=True)\nimport time\ntime.sleep(600)\n"},
    {"close_stdout_then_hang", "os.close(1)\nos.close(2)\nimport time\ntime.sleep(600)\n"},
    {"ignore_sigterm", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n"},
};
INSTANTIATE_TEST_SUITE_P(Timeout, Hang, ::testing::ValuesIn(hangs),
                         [](const auto& i) { return std::string(i.param.name); });

// ---- memory -----------------------------------------------------------------------------------

TEST_F(Escape, MemoryExhaustionIsReportedAsSuch) {
  const auto r = attack("a = []\nwhile True:\n    a.append(bytearray(1 << 20))\n", {"--memory-mb", "128"});
  expect_verdict(r, verdict::memory_exhausted, "128 MiB");
}

// ---- processes --------------------------------------------------------------------------------

TEST_F(Escape, ForkBombStopsAtTheGuestLimitAndTheSandboxSurvives) {
  expect_contained(attack(R"(
import time
kids = []
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
    if len(kids) > 200:
        breached(len(kids))
for pid in kids:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
if not 0 < len(kids) < 64:
    breached(len(kids))
contained()   # reaching here proves the sandbox itself survived
)"));
}

TEST_F(Escape, ThreadBombStopsAtTheGuestLimitAndTheSandboxSurvives) {
  expect_contained(attack(R"(
import threading, time
stop = threading.Event()
threads = []
while True:
    t = threading.Thread(target=stop.wait)
    try:
        t.start()
    except RuntimeError:
        break
    threads.append(t)
    if len(threads) > 200:
        breached(len(threads))
stop.set()
for t in threads:
    t.join()
if not 0 < len(threads) < 64:
    breached(len(threads))
contained()
)"));
}

// ---- the container as the daemon sees it ------------------------------------------------------

TEST_F(Escape, InspectShowsEveryControl) {
  const auto script = write("model.py", "import time\ntime.sleep(20)\n");
  const auto data = write("data.csv", "a\n1\n");
  tool_process tool(score_args(script, data, {"a"}, path("out.csv"), {"--seconds", "20"}), path("o"), path("e"));
  std::string name;  // the run's container, never the preflight's probe: named by its client
  for (int i = 0; i < 1200 && name.empty(); ++i) {
    name = run_container_name(tool.pid());
    if (name.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(name.empty()) << "no docker client of the run appeared";
  std::string body;
  bool running = false;
  const runner::engine_transport raw;           // the whole inspection, not the tool's summary of it
  for (int i = 0; i < 1200 && !running; ++i) {  // 120 s at most
    auto reply = raw.get("/containers/" + name + "/json");
    ASSERT_TRUE(reply) << reply.error().message();
    body = reply->body;
    if (reply->status == 200) running = boost::json::parse(body).at("State").at("Running").as_bool();
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(running) << "the run's container was never seen running";
  tool.send(SIGTERM);
  tool.wait();

  const auto c = boost::json::parse(body).as_object();
  const auto& host = c.at("HostConfig").as_object();
  const auto& config = c.at("Config").as_object();
  EXPECT_EQ(host.at("Runtime").as_string(), "runsc");
  EXPECT_EQ(host.at("NetworkMode").as_string(), "none");
  EXPECT_EQ(host.at("IpcMode").as_string(), "none");
  EXPECT_TRUE(host.at("ReadonlyRootfs").as_bool());
  EXPECT_FALSE(host.at("Privileged").as_bool());
  EXPECT_EQ(boost::json::serialize(host.at("CapDrop")), R"(["ALL"])");
  EXPECT_TRUE(host.at("CapAdd").is_null());
  EXPECT_EQ(boost::json::serialize(host.at("SecurityOpt")), R"(["no-new-privileges"])");
  EXPECT_EQ(config.at("User").as_string(), "65534:65534");
  EXPECT_EQ(host.at("Memory").to_number<std::int64_t>(), 512ll << 20);
  EXPECT_EQ(host.at("MemorySwap").to_number<std::int64_t>(), 512ll << 20) << "swap must be off";
  EXPECT_EQ(host.at("NanoCpus").to_number<std::int64_t>(), 1'000'000'000);
  EXPECT_EQ(host.at("PidsLimit").to_number<std::int64_t>(), 320) << "64 guest processes + 256 host tasks";
  using soft_hard = std::pair<std::int64_t, std::int64_t>;
  std::map<std::string, soft_hard> ulimits;
  for (const auto& u : host.at("Ulimits").as_array())
    ulimits[std::string(u.at("Name").as_string())] = {u.at("Soft").to_number<std::int64_t>(),
                                                      u.at("Hard").to_number<std::int64_t>()};
  EXPECT_EQ(ulimits["nproc"], soft_hard(64, 64));
  EXPECT_EQ(ulimits["nofile"], soft_hard(256, 256));
  EXPECT_EQ(ulimits["fsize"], soft_hard(16 << 20, 16 << 20));
  EXPECT_EQ(ulimits["core"], soft_hard(0, 0));
  EXPECT_EQ(ulimits.size(), 4u);
  EXPECT_EQ(boost::json::serialize(host.at("Tmpfs")), R"({"/tmp":"rw,size=16m,noexec,nosuid,nodev,mode=1777"})");
  EXPECT_EQ(host.at("LogConfig").at("Type").as_string(), "none");
  EXPECT_TRUE(host.at("Binds").is_null()) << "no -v binds";
  const auto& mounts = c.at("Mounts").as_array();
  ASSERT_EQ(mounts.size(), 1u) << boost::json::serialize(mounts);
  EXPECT_EQ(mounts[0].at("Type").as_string(), "bind");
  EXPECT_EQ(mounts[0].at("Destination").as_string(), "/sandbox/model.py");
  EXPECT_FALSE(mounts[0].at("RW").as_bool());
  EXPECT_EQ(std::string(mounts[0].at("Source").as_string()).rfind("/var/lib/plb-sandbox/runs/", 0), 0u);
  EXPECT_EQ(boost::json::serialize(config.at("Entrypoint")), R"(["/usr/bin/env"])");
  EXPECT_EQ(config.at("Cmd").as_array().at(0).as_string(), "-i");
  // No host variable reaches the container's configuration (Docker adds only its default PATH).
  if (const auto* env = config.if_contains("Env"); env && env->is_array()) {
    for (const auto& e : env->as_array()) EXPECT_EQ(std::string(e.as_string()).rfind("PATH=", 0), 0u) << e;
  }
  EXPECT_EQ(config.at("Image").as_string(), image_);
}

// ---- cleanup ----------------------------------------------------------------------------------

class Cleanup : public Escape {};

TEST_F(Cleanup, SigtermRemovesTheContainerThenDiesBySigterm) {
  std::string name;
  auto tool = start_sleeper(name);
  ASSERT_FALSE(name.empty());
  const auto sent = std::chrono::steady_clock::now();
  tool->send(SIGTERM);
  const auto r = tool->wait();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_EQ(r.signal, SIGTERM) << r.err;
  EXPECT_LT(took, 30.0) << "SECURITY.md: removal under a 30 s deadline on every way out";
  EXPECT_FALSE(runner::inspect_container(runner::docker_engine{}, name).has_value());
  EXPECT_FALSE(exists(path("out.csv")));
}

TEST_F(Cleanup, SigintRemovesTheContainerThenDiesBySigint) {
  std::string name;
  auto tool = start_sleeper(name);
  ASSERT_FALSE(name.empty());
  tool->send(SIGINT);
  const auto r = tool->wait();
  EXPECT_EQ(r.signal, SIGINT) << r.err;
  EXPECT_FALSE(runner::inspect_container(runner::docker_engine{}, name).has_value());
}

TEST_F(Cleanup, SweepLeavesALiveRunAlone) {
  std::string name;
  auto tool = start_sleeper(name);
  ASSERT_FALSE(name.empty());
  const auto r = run({"sweep"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 run(s) of a live plb-sandbox left alone"), std::string::npos) << r.out;
  EXPECT_TRUE(runner::inspect_container(runner::docker_engine{}, name).has_value());
  tool->send(SIGTERM);
  tool->wait();
}

std::size_t runsc_processes() {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string comm = slurp(e.path().string() + "/comm");
    if (comm.rfind("runsc", 0) == 0) ++n;
  }
  return n;
}

TEST_F(Cleanup, TwentySequentialAndFourParallelRunsLeaveNothing) {
  const std::size_t before = runsc_processes();
  const auto script = write("model.py",
                            "import json,sys\nrows=json.load(sys.stdin)['features']\n"
                            "print(json.dumps({'predictions':[r[0] for r in rows]}))\n");
  const auto data = write("data.csv", "a\n7\n");
  for (int i = 0; i < 20; ++i) {
    const auto r = run(score_args(script, data, {"a"}, path("s" + std::to_string(i) + ".csv")));
    ASSERT_EQ(r.exit_code, 0) << i << ": " << r.err;
  }
  std::vector<std::unique_ptr<tool_process>> par;
  for (int i = 0; i < 4; ++i)
    par.push_back(
        std::make_unique<tool_process>(score_args(script, data, {"a"}, path("p" + std::to_string(i) + ".csv")),
                                       path("po" + std::to_string(i)), path("pe" + std::to_string(i))));
  for (auto& p : par) EXPECT_EQ(p->wait().exit_code, 0);
  EXPECT_TRUE(runner::labelled_containers(runner::docker_engine{}).empty());
  std::size_t after = runsc_processes();
  for (int i = 0; i < 50 && after > before; ++i) {  // the runtime's processes exit just after the container
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after = runsc_processes();
  }
  EXPECT_EQ(after, before) << "stray runsc processes";
  EXPECT_TRUE(std::filesystem::is_empty("/var/lib/plb-sandbox/runs")) << "a run directory was left behind";
}

// ---- daemon faults ----------------------------------------------------------------------------

TEST_F(Cleanup, DaemonRestartMidRunGivesAClearErrorAndLeavesNothing) {
  std::string name;
  auto tool = start_sleeper(name);
  ASSERT_FALSE(name.empty());
  ASSERT_EQ(std::system(("bash " + std::string(PLB_SANDBOX_SOURCE_DIR) + "/tests/gvisor/restart-dockerd.sh").c_str()),
            0);
  const auto r = tool->wait();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("plb-sandbox: ", 0), 0u) << r.err;
  EXPECT_FALSE(exists(path("out.csv")));
  EXPECT_FALSE(runner::inspect_container(runner::docker_engine{}, name).has_value());
}

}  // namespace
}  // namespace plb::test
