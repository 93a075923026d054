# rocblas_headers.cmake: fetches Debian trixie's librocblas-dev (the rocBLAS headers) into the build tree for
# the rocBLAS ABI check, without installing it: a private apt state, `apt-get download`, `dpkg -x`.
#
# Use from CMake:   include(rocblas_headers)  then  wick_fetch_rocblas_headers(<work dir> <result var>)
#                   (<result var> is set to the unpacked include directory, or "" when the fetch failed).
# Use as a script:  cmake -DOUT=<work dir> -P cmake/rocblas_headers.cmake
#
# Why this way: rocBLAS is packaged by Debian only from trixie on, and this project builds on bookworm,
# where trixie's packages cannot be installed. Only the headers are needed, so the .deb is downloaded and
# unpacked into <work dir>/rocblas-headers; nothing is installed and nothing lands in the source tree.
# The mirror is the one this machine's own apt sources already use, read at run time (the repository
# names no mirror); -DWICK_DEBIAN_MIRROR=<uri> overrides it. Every failure (no apt, offline, package gone)
# is soft: a message, and the caller leaves the ABI check out.

# The first URI of the main Debian archive in this machine's apt sources (one-line .list files and
# deb822 .sources files): a "deb" source with a release suite (no "-security"/"-updates" part) and the
# main component, whose URI is not a security archive. Also returns the keyring the source names.
function(_wick_debian_mirror out_uri out_keyring)
  set(uri "")
  set(keyring "")
  if(WICK_DEBIAN_MIRROR)
    set(uri "${WICK_DEBIAN_MIRROR}")
  else()
    set(files "")
    if(EXISTS /etc/apt/sources.list)
      list(APPEND files /etc/apt/sources.list)
    endif()
    file(GLOB parts /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
    list(SORT parts)
    list(APPEND files ${parts})
    foreach(f IN LISTS files)
      if(uri)
        break()
      endif()
      file(STRINGS "${f}" lines)
      if(f MATCHES "\\.sources$")
        # deb822: stanzas separated by blank lines (file(STRINGS) drops them, so a "Types:" line starts one)
        list(APPEND lines "Types: end")
        set(types "")
        set(uris "")
        set(suites "")
        set(comps "")
        set(signed "")
        set(enabled yes)
        foreach(l IN LISTS lines)
          if(l MATCHES "^[ \t]*Types:[ \t]*(.*)$")
            set(next_types "${CMAKE_MATCH_1}") # the tests below overwrite CMAKE_MATCH_1
            # close the previous stanza
            if(NOT uri AND enabled AND " ${types} " MATCHES " deb " AND " ${comps} " MATCHES " main ")
              string(REGEX MATCH "(^| )[a-z]+( |$)" release " ${suites} ")
              string(REGEX REPLACE "^[ \t]*([^ \t]+).*$" "\\1" first "${uris}")
              if(release AND first AND NOT first MATCHES "security")
                set(uri "${first}")
                set(keyring "${signed}")
              endif()
            endif()
            set(types "${next_types}")
            set(uris "")
            set(suites "")
            set(comps "")
            set(signed "")
            set(enabled yes)
          elseif(l MATCHES "^[ \t]*URIs:[ \t]*(.*)$")
            set(uris "${CMAKE_MATCH_1}")
          elseif(l MATCHES "^[ \t]*Suites:[ \t]*(.*)$")
            set(suites "${CMAKE_MATCH_1}")
          elseif(l MATCHES "^[ \t]*Components:[ \t]*(.*)$")
            set(comps "${CMAKE_MATCH_1}")
          elseif(l MATCHES "^[ \t]*Signed-By:[ \t]*(/[^ \t]*)[ \t]*$")
            set(signed "${CMAKE_MATCH_1}") # a keyring path; an inline key is left to apt's default keys
          elseif(l MATCHES "^[ \t]*Enabled:[ \t]*[Nn]o")
            set(enabled no)
          endif()
        endforeach()
      else()
        foreach(l IN LISTS lines)
          # deb [options] uri suite component...
          if(l MATCHES "^[ \t]*deb[ \t]+(\\[[^]]*\\][ \t]+)?([^ \t]+)[ \t]+([a-z]+)[ \t]+(.*)$")
            set(opts "${CMAKE_MATCH_1}")
            set(u "${CMAKE_MATCH_2}")
            set(c " ${CMAKE_MATCH_4} ")
            if(c MATCHES " main " AND NOT u MATCHES "security")
              set(uri "${u}")
              if(opts MATCHES "signed-by=(/[^] \t]+)")
                set(keyring "${CMAKE_MATCH_1}")
              endif()
              break()
            endif()
          endif()
        endforeach()
      endif()
    endforeach()
  endif()
  if(NOT keyring AND EXISTS /usr/share/keyrings/debian-archive-keyring.gpg)
    set(keyring /usr/share/keyrings/debian-archive-keyring.gpg)
  endif()
  set(${out_uri} "${uri}" PARENT_SCOPE)
  set(${out_keyring} "${keyring}" PARENT_SCOPE)
endfunction()

function(wick_fetch_rocblas_headers work result_var)
  set(${result_var} "" PARENT_SCOPE)
  set(dest "${work}/rocblas-headers")
  set(include "${dest}/usr/include")
  if(EXISTS "${include}/rocblas/rocblas.h")
    set(${result_var} "${include}" PARENT_SCOPE) # fetched by an earlier configure
    return()
  endif()
  find_program(WICK_APT_GET apt-get)
  find_program(WICK_DPKG dpkg)
  if(NOT WICK_APT_GET OR NOT WICK_DPKG)
    message(STATUS "rocBLAS headers: apt-get/dpkg not found; the rocBLAS ABI check is not built")
    return()
  endif()
  _wick_debian_mirror(mirror keyring)
  if(NOT mirror)
    message(STATUS "rocBLAS headers: no Debian mirror in /etc/apt/sources*; set WICK_DEBIAN_MIRROR; "
                   "the rocBLAS ABI check is not built")
    return()
  endif()

  # The private apt: its own sources, lists, cache, (empty) status and preferences, so nothing of the
  # machine's apt state is read or changed; apt.conf.d still applies (proxies).
  set(apt "${work}/rocblas-apt")
  file(MAKE_DIRECTORY "${apt}/state/lists/partial" "${apt}/cache/archives/partial" "${apt}/sources.list.d"
       "${apt}/preferences.d" "${apt}/debs")
  file(WRITE "${apt}/state/status" "")
  set(opts "")
  if(keyring)
    set(opts "[signed-by=${keyring}] ")
  endif()
  file(WRITE "${apt}/sources.list" "deb ${opts}${mirror} trixie main\n")
  set(apt_opts
      -o "Dir::State=${apt}/state" -o "Dir::State::status=${apt}/state/status" -o "Dir::Cache=${apt}/cache"
      -o "Dir::Etc::SourceList=${apt}/sources.list" -o "Dir::Etc::SourceParts=${apt}/sources.list.d"
      -o "Dir::Etc::Preferences=${apt}/preferences" -o "Dir::Etc::PreferencesParts=${apt}/preferences.d"
      -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root" -o "Acquire::Retries=1" -o "Acquire::http::Timeout=30"
      -o "Acquire::Languages=none" -o "Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false"
      # an unreachable mirror fails `update` itself (by default apt only warns); older apt ignores the option
      -o "APT::Update::Error-Mode=any")

  message(STATUS "rocBLAS headers: fetching Debian trixie's librocblas-dev from ${mirror}")
  execute_process(COMMAND "${WICK_APT_GET}" ${apt_opts} -qq update RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 600)
  string(STRIP "${err}" err)
  if(NOT rc EQUAL 0)
    message(STATUS "rocBLAS headers: apt-get update of trixie failed (offline?): ${rc} ${err}; "
                   "the rocBLAS ABI check is not built")
    return()
  endif()
  # librocblas-dev alone: its headers include only HIP's (<hip/...>), which libamdhip64-dev provides
  # from the machine's own release.
  execute_process(COMMAND "${WICK_APT_GET}" ${apt_opts} -qq download librocblas-dev
                  WORKING_DIRECTORY "${apt}/debs" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 600)
  string(STRIP "${err}" err)
  file(GLOB debs "${apt}/debs/librocblas-dev_*.deb")
  if(NOT rc EQUAL 0 OR NOT debs)
    message(STATUS "rocBLAS headers: apt-get download librocblas-dev failed: ${rc} ${err}; "
                   "the rocBLAS ABI check is not built")
    return()
  endif()
  list(GET debs 0 deb)
  file(REMOVE_RECURSE "${dest}")
  execute_process(COMMAND "${WICK_DPKG}" -x "${deb}" "${dest}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${include}/rocblas/rocblas.h")
    message(STATUS "rocBLAS headers: unpacking ${deb} failed or held no rocblas/rocblas.h: ${rc} ${err}; "
                   "the rocBLAS ABI check is not built")
    return()
  endif()
  get_filename_component(name "${deb}" NAME)
  message(STATUS "rocBLAS headers: ${name} unpacked into ${dest}")
  set(${result_var} "${include}" PARENT_SCOPE)
endfunction()

# Script mode: cmake -DOUT=<work dir> -P cmake/rocblas_headers.cmake
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT OUT)
    message(FATAL_ERROR "usage: cmake -DOUT=<work dir> -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  get_filename_component(OUT "${OUT}" ABSOLUTE)
  wick_fetch_rocblas_headers("${OUT}" WICK_ROCBLAS_INCLUDE)
  if(WICK_ROCBLAS_INCLUDE)
    message(STATUS "rocBLAS include directory: ${WICK_ROCBLAS_INCLUDE}")
  endif()
endif()
