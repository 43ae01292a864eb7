# SPDX-License-Identifier: Apache-2.0
# Two Debian packages from one build, with CPack's DEB generator (one package per component):
#   plb-sandbox        (component tool) the executable, plb-sandbox-setup-host, man pages, bash
#                      completion; Depends on the exact shared libraries it links (dpkg-shlibdeps)
#   libplb-sandbox-dev (component dev)  the headers, the runner library and the CMake package files
# `cpack -G DEB` in a build configured with CMAKE_INSTALL_PREFIX=/usr makes both (ci/package).
set(PLB_SHARE_DIR ${CMAKE_INSTALL_FULL_DATADIR}/plb-sandbox)
set(pkg ${PROJECT_SOURCE_DIR}/packaging)
set(out ${PROJECT_BINARY_DIR}/packaging)

configure_file(${pkg}/setup-host.sh.in ${out}/plb-sandbox-setup-host @ONLY)
install(PROGRAMS ${out}/plb-sandbox-setup-host DESTINATION ${CMAKE_INSTALL_SBINDIR} COMPONENT tool)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/ci/host/setup-host DESTINATION ${CMAKE_INSTALL_DATADIR}/plb-sandbox COMPONENT tool)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/ci/host/daemonize DESTINATION ${CMAKE_INSTALL_DATADIR}/plb-sandbox COMPONENT tool)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/ci/host/start-warden DESTINATION ${CMAKE_INSTALL_DATADIR}/plb-sandbox COMPONENT tool)
install(FILES ${PROJECT_SOURCE_DIR}/ci/host/runsc.sha256 DESTINATION ${CMAKE_INSTALL_DATADIR}/plb-sandbox COMPONENT tool)
# The deadline warden's unit (warden.hpp): enabled and started by the postinst, purged by postrm.
install(FILES ${pkg}/plb-sandbox-warden.service DESTINATION lib/systemd/system COMPONENT tool)
install(FILES ${pkg}/plb-sandbox.bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME plb-sandbox COMPONENT tool)

# Man pages and changelogs gzipped reproducibly (-n: no name or time stamp), as Debian wants them.
set(gzipped)
foreach(page plb-sandbox.1 plb-sandbox-setup-host.8 changelog)
  set(src ${pkg}/${page})
  if(page STREQUAL changelog)
    set(src ${pkg}/changelog.in)
  endif()
  configure_file(${src} ${out}/${page} @ONLY)
  add_custom_command(OUTPUT ${out}/${page}.gz COMMAND gzip -9nf -k ${out}/${page} DEPENDS ${out}/${page})
  list(APPEND gzipped ${out}/${page}.gz)
endforeach()
add_custom_target(package_docs ALL DEPENDS ${gzipped})
install(FILES ${out}/plb-sandbox.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tool)
install(FILES ${out}/plb-sandbox-setup-host.8.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT tool)
foreach(component_package tool:plb-sandbox dev:libplb-sandbox-dev)
  string(REPLACE ":" ";" pair ${component_package})
  list(GET pair 0 component)
  list(GET pair 1 package)
  install(FILES ${pkg}/copyright ${out}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package}
    COMPONENT ${component})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tool dev)
set(CPACK_PACKAGE_NAME plb-sandbox)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "plb-sandbox developers <plb-sandbox@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/plb-sandbox/plb-sandbox")
# Apache-2.0 (LICENSE). A .deb has no license field: packaging/copyright, installed above as each
# package's /usr/share/doc/<package>/copyright, is where Debian looks; the license text itself is
# the system's /usr/share/common-licenses/Apache-2.0 (a second copy would be lintian's
# extra-license-file). CPack's installer generators show the resource file; an RPM (cpack -G RPM)
# names the license in its License tag.
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RPM_PACKAGE_LICENSE Apache-2.0)

set(CPACK_DEBIAN_TOOL_PACKAGE_NAME plb-sandbox)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_TOOL_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_TOOL_PACKAGE_RECOMMENDS "docker.io, runsc")
set(CPACK_DEBIAN_TOOL_PACKAGE_CONTROL_EXTRA ${pkg}/postinst ${pkg}/prerm ${pkg}/postrm)
set(CPACK_COMPONENT_TOOL_DESCRIPTION "score untrusted Python inference scripts inside gVisor
 plb-sandbox sandbox-score runs an untrusted Python inference script inside
 gVisor's runsc runtime on the local Docker Engine, with every control on (no
 network, no capabilities, read-only root, resource limits, a watchdog and a
 reaper), and writes local-only predictions and provenance. Its deadline
 warden, a host service, removes any sandbox past its wall time whatever
 became of the tool. Includes plb-sandbox-setup-host, which prepares a
 Debian 12 evaluation host.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libplb-sandbox-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libboost1.81-dev, libboost-json1.81-dev, libboost-filesystem1.81-dev, libssl-dev, libcpp-httplib-dev, pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION "plb-sandbox policy and validation core and runner (development files)
 The header-only core of plb-sandbox (limits, image IDs, digests, CSV reader,
 features encoder, predictions parser, sandbox policy, provenance), the runner
 library that scores a script in gVisor from C++ (plb::sandbox_runner), and
 their CMake package files: find_package(plb_sandbox).")

include(CPack)
