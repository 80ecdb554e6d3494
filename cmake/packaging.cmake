# The Debian packages (`cpack -G DEB` in a build folder; scripts/test_packages.sh):
#   rgpu-server  rgpud, its systemd unit, its default configuration (a conffile)
#   rgpu-client  rgpu and the shim libraries
#   rgpu-ucx     the UCX transport (librgpu_transport_ucx.so), which rgpud and the shims load when
#                RGPU_TRANSPORT=ucx; the one package that depends on UCX
# An install() rule joins a package by its COMPONENT: `server`, `client` or `ucx`. Rules without one (the
# tests, the benchmark) stay out of both. The files only the package installs (the unit, the
# configuration) are at absolute paths, in a component of their own, `server_system`, that only
# cpack asks for (EXCLUDE_FROM_ALL): `cmake --install build [--component server] --prefix X`
# never writes to /etc.
set(RGPU_DEBIAN_DIR ${PROJECT_SOURCE_DIR}/deploy/debian)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/systemd/rgpud.service DESTINATION /lib/systemd/system
        COMPONENT server_system EXCLUDE_FROM_ALL)
install(FILES ${RGPU_DEBIAN_DIR}/rgpud.yaml DESTINATION /etc/rgpu COMPONENT server_system EXCLUDE_FROM_ALL)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rgpu)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "rgpu dev <dev@rgpu>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Absolute destinations (above) go under the package's root, not the build machine's.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL server server_system client)
if(TARGET rgpu_transport_ucx)
  list(APPEND CPACK_COMPONENTS_ALL ucx)
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)  # a package per group: server and server_system are one
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # rgpu-server_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# Dependencies are what dpkg-shlibdeps finds the binaries need (dpkg-dev): the shims need no CUDA
# library, rgpud loads the driver's and CUDA's libraries when a session asks for them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Debug builds (CI packages its Debug build) are stripped on the way into the package.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # CI builds the packages on every run: the fastest
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_SERVER_PACKAGE_NAME rgpu-server)
set(CPACK_COMPONENT_SERVER_DESCRIPTION
    "rgpu's GPU server: rgpud serves this host's GPUs to rgpu clients on other hosts and in containers\n\
One worker process per client session; tenants with memory and compute slices of a GPU.")
set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_EXTRA
    "${RGPU_DEBIAN_DIR}/server/conffiles;${RGPU_DEBIAN_DIR}/server/postinst;${RGPU_DEBIAN_DIR}/server/prerm;${RGPU_DEBIAN_DIR}/server/postrm")
set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME rgpu-client)
set(CPACK_COMPONENT_CLIENT_DESCRIPTION
    "rgpu's client: run unmodified CUDA programs on a remote GPU\n\
rgpu run puts the shim libraries (libcudart, cuBLAS, cuDNN, NVML, the driver API, ...) in front of a program;\n\
they forward its CUDA calls to an rgpud. No GPU, driver or CUDA toolkit is needed on the client.")

set(CPACK_DEBIAN_UCX_PACKAGE_NAME rgpu-ucx)
set(CPACK_COMPONENT_UCX_DESCRIPTION
    "rgpu's UCX transport: sessions over RDMA (InfiniBand, RoCE) or UCX's own transports\n\
rgpud and rgpu's client libraries load it when RGPU_TRANSPORT=ucx; install it beside rgpu-server or rgpu-client.")

include(CPack)
cpack_add_component_group(server)
cpack_add_component_group(client)
cpack_add_component(server GROUP server)
cpack_add_component(server_system GROUP server)
cpack_add_component(client GROUP client)
if(TARGET rgpu_transport_ucx)
  cpack_add_component_group(ucx)
  cpack_add_component(ucx GROUP ucx)
endif()
