# Installing and packaging: `cmake --install build [--prefix P]` and `cpack` (a .deb).
#   bin/                          bbd, bbctl, bb-controller, bb-modeselect, bb-replay
#   libexec/bbfs/                 the Slurm hooks: bb-prolog, bb-epilog, bb-task-prolog
#   share/bbfs/modeselect/        the mode selector's knowledge base (bb-modeselect finds it from its bin/)
#   share/bbfs/slurm/             bb-hook.sh (bbctl emulate up --slurm installs it), bb-job.sh, bb-slurm.env.example
#   share/bbfs/examples/          bbd.yaml, the mode files, the QoS policy, the Grafana dashboard
#   share/man/man1/               a page per program, made from its --help (help2man)
#   lib/systemd/system/bbd@.service   a persistent daemon per /etc/bbfs/<instance>.yaml
# A site's own copies in /etc/bbfs/ come first at run time (docs/install.md#installing).
include(GNUInstallDirs)
set(BB_PROGRAMS bbd bbctl bb-controller bb-modeselect bb-replay)
install(TARGETS ${BB_PROGRAMS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(hook bb-prolog bb-epilog bb-task-prolog)
  install(PROGRAMS configs/slurm/bb-hook.sh DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/bbfs RENAME ${hook})
endforeach()
install(FILES configs/modeselect/rules.yaml configs/modeselect/modes.yaml configs/modeselect/patterns.yaml
              configs/modeselect/calibration.yaml configs/modeselect/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bbfs/modeselect)
install(PROGRAMS configs/slurm/bb-hook.sh configs/slurm/bb-job.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/bbfs/slurm)
install(FILES configs/slurm/bb-slurm.env.example configs/slurm/job_submit.lua DESTINATION ${CMAKE_INSTALL_DATADIR}/bbfs/slurm)
install(FILES configs/bbd.yaml configs/qos/policy.yaml configs/grafana/bbfs-dashboard.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bbfs/examples)
install(DIRECTORY configs/modes DESTINATION ${CMAKE_INSTALL_DATADIR}/bbfs/examples)
install(FILES configs/systemd/bbd@.service DESTINATION lib/systemd/system)

# Man pages from the programs' own --help, so the two never disagree.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(BB_MAN_PAGES)
  set(what_bbd "the burst buffer daemon, one per node")
  set(what_bbctl "control the burst buffer: daemons, the emulated cluster, jobs, staging, the Slurm hooks")
  set(what_bb-controller "the QoS controller: per-job rate targets computed and pushed to the daemons")
  set(what_bb-modeselect "choose a job's layout mode from its script, sources and I/O profile")
  set(what_bb-replay "a metadata load generator")
  foreach(p ${BB_PROGRAMS})
    set(page ${CMAKE_BINARY_DIR}/man/${p}.1.gz)
    add_custom_command(OUTPUT ${page}
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
                       COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C.UTF-8 ${HELP2MAN} --no-info --no-discard-stderr
                               --version-string=${PROJECT_VERSION} --name=${what_${p}} --output=${CMAKE_BINARY_DIR}/man/${p}.1 $<TARGET_FILE:${p}>
                       COMMAND gzip -9nf ${CMAKE_BINARY_DIR}/man/${p}.1
                       DEPENDS ${p} VERBATIM)
    list(APPEND BB_MAN_PAGES ${page})
  endforeach()
  add_custom_target(man ALL DEPENDS ${BB_MAN_PAGES})
  install(FILES ${BB_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man pages (tools/install-deps.sh --build installs it)")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bbfs)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "bbfs maintainers <bbfs@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "burst buffer file system for HPC clusters (per-node FUSE daemons over UCX)")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the runtime libraries only, from the binaries' links
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fuse3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-wlm, prometheus-node-exporter")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
include(CPack)
