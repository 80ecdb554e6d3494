// Broken specs: each mistake is rejected with file:line, what is wrong, and how to fix it.
#include <catch2/catch.hpp>

#include <string>

#include "codegen_runner.h"

using rgpu::test::run_command;

namespace {

// The fake spec with `extra` lines added to its functions (line 4 of the file onwards).
std::string spec_with(const std::string& extra, const std::string& patterns = "") {
  return "library: cudart\n"
         "soname: libfake.so.1\n"
         "exports: " + std::string(RGPU_FAKE_DIR) + "/fake.exports\n"
         "headers: [fake_runtime.h]\n"
         "status: {type: fakeError_t, success: fakeSuccess, not_supported: fakeErrorNotSupported,\n"
         "  invalid_handle: fakeErrorInvalidHandle, unavailable: fakeErrorNoDevice, bad_reply: fakeErrorUnknown}\n"
         "handles: {fakeStream_t: stream}\n"
         "functions:\n"
         "  fakeGetCount: {class: sync}\n" +  // line 9
         extra + (patterns.empty() ? "" : "patterns:\n" + patterns) + "default: unsupported\n";
}

// Runs the generator on `spec`; its outputs go to `dir`/out (a fresh folder when none is given).
rgpu::test::RunResult generate(const std::string& spec, std::string dir = "") {
  if (dir.empty()) dir = rgpu::test::make_temp_dir("codegen-broken");
  rgpu::test::write_file(dir + "/broken.yaml", spec);
  return run_command(std::string(RGPU_CODEGEN_BIN) + " --spec " + dir + "/broken.yaml --cuda-include " +
                     RGPU_FAKE_DIR + " --out " + dir + "/out");
}

}  // namespace

TEST_CASE("the base of the broken specs is itself valid") {
  auto r = generate(spec_with(""));
  INFO(r.output);
  CHECK(r.exit_code == 0);
}

TEST_CASE("an unknown key is rejected with the allowed keys") {
  auto r = generate(spec_with("  fakeSum: {class: sync, direction: in}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:10:") && Catch::Contains("unknown key 'direction'") &&
                           Catch::Contains("allowed keys: api, blocking, cached, class, client, destroys, forgets_answers, "
                                                           "outputs_on_failure, params, remote, server"));
}

TEST_CASE("an unknown top-level key is rejected") {
  auto r = generate("colour: blue\n" + spec_with(""));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:1:") && Catch::Contains("unknown key 'colour' in the spec"));
}

TEST_CASE("a duplicate function entry is rejected and the fix named") {
  auto r = generate(spec_with("  fakeGetCount: {class: async}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:10:") &&
                           Catch::Contains("duplicate entry for function fakeGetCount; merge the two entries"));
}

TEST_CASE("an unmarshallable function without annotation is rejected with the fix") {
  auto r = generate(spec_with("  fakeSetCallback: {class: async}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:10:") &&
                           Catch::Contains("cannot marshal parameter 'fn' (fakeCallback) of fakeSetCallback") &&
                           Catch::Contains("function pointer") && Catch::Contains("`client: FILE`") &&
                           Catch::Contains("`params:`"));
}

TEST_CASE("an entry for a name the library does not export is rejected") {
  auto r = generate(spec_with("  fakeGetCuont: {class: sync}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:10:") &&
                           Catch::Contains("fakeGetCuont is not exported by libfake.so.1") &&
                           Catch::Contains("fix the name or remove the entry"));
}

TEST_CASE("an async function with outputs is rejected") {
  auto r = generate(spec_with("  fakeSum: {class: async, params: {values: {count: n}}}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeSum is async but returns data through 'sum'; make it sync"));
}

TEST_CASE("a parameter annotation for a parameter that does not exist is rejected") {
  auto r = generate(spec_with("  fakeName:\n    class: sync\n    params: {nam: {dir: out, count: len}}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:12:") &&
                           Catch::Contains("fakeName has no parameter 'nam'; its parameters are: id, name, len"));
}

TEST_CASE("a pattern that matches nothing is rejected") {
  auto r = generate(spec_with("", "  - {match: \"cudaGL*\", class: unsupported}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("pattern 'cudaGL*' matches no export"));
}

TEST_CASE("a local function needs its hand-written client file") {
  auto r = generate(spec_with("  fakeQueryDevice: {class: local}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeQueryDevice is local but has no hand-written client side; add `client: FILE`"));
}

TEST_CASE("a blocking call must be sync") {
  auto r = generate(spec_with("  fakeFill: {class: async, blocking: true}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeFill: only sync calls can be `blocking: true`"));
}

TEST_CASE("a pattern's header must be the one that declares the function") {
  auto r = generate(spec_with("", "  - {match: \"fakeSum\", header: other.h, class: sync}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("pattern 'fakeSum' matches no export left by the exact entries"));
}

TEST_CASE("a function that returns a value must be sync") {
  auto r = generate(spec_with("  fakeScale: {class: async}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeScale returns a value (double); make it sync"));
}

TEST_CASE("outputs on failure are for sync calls generated on both sides") {
  auto r = generate(spec_with("  fakeFill: {class: async, outputs_on_failure: true}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeFill: `outputs_on_failure: true` is for a sync call generated on both sides"));
}

TEST_CASE("remote: true needs both hand-written sides") {
  auto r = generate(spec_with("  fakeSum: {class: sync, remote: true, params: {values: {count: n}}}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeSum: `remote: true`") &&
                           Catch::Contains("needs both `client: FILE` and `server: FILE`"));
}

TEST_CASE("api: true is for functions without a server side of their own") {
  auto r = generate(spec_with("  fakeSum: {class: sync, api: true, params: {values: {count: n}}}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeSum: `api: true`") && Catch::Contains("needs `server: none`"));
}

TEST_CASE("a scalar parameter needs the spec's scalars: rule") {
  auto r = generate(spec_with("  fakeSum: {class: sync, params: {values: {dir: scalar}}}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:10:") && Catch::Contains("`dir: scalar` needs the spec's `scalars:`"));
}

TEST_CASE("an async call cannot return a scalar") {
  auto r = generate(
      "scalars: {host_mode: \"true\", header: none.h}\n" +
      spec_with("  fakeSwap: {class: async, params: {value: {dir: scalar}}}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeSwap is async but returns data through 'value'; make it sync"));
}

TEST_CASE("pointer_default takes host or device only") {
  auto r = generate("pointer_default: sideways\n" + spec_with(""));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("broken.yaml:1:") && Catch::Contains("pointer_default must be host or device"));
}

TEST_CASE("proc_address_typedefs: the table of cuGetProcAddress, or a clear error without its header") {
  // A header without PFN typedefs: every export answers at any version.
  std::string dir = rgpu::test::make_temp_dir("codegen-proc");
  auto ok = generate("proc_address_typedefs: fake_runtime.h\n" + spec_with(""), dir);
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  CHECK_THAT(rgpu::test::read_file(dir + "/out/cudart_proc_table.cpp"),
             Catch::Contains("{\"fakeGetCount\", 0, false, &::fakeGetCount},"));

  auto r = generate("proc_address_typedefs: noSuchTypedefs.h\n" + spec_with(""));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("noSuchTypedefs.h: cannot read it"));
}

TEST_CASE("type_defaults describe every parameter of a type, a name's rule or an entry's params win") {
  // Under pointer_default: device an undescribed long long* is a device address, so an async call may take it.
  const std::string device = "pointer_default: device\n";
  auto plain = generate(device + spec_with("  fakeSum: {class: async}\n"));
  INFO(plain.output);
  CHECK(plain.exit_code == 0);
  // The type's rule makes it an output (spaces in the spelling do not count)...
  for (const char* type : {"\"long long *\"", "\"long long*\""}) {
    auto r = generate(device + "type_defaults: {" + type + ": {dir: out}}\n" + spec_with("  fakeSum: {class: async}\n"));
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.output, Catch::Contains("fakeSum is async but returns data through 'sum'; make it sync"));
  }
  // ...unless the parameter's name or the function's entry says otherwise.
  auto by_name = generate(device + "type_defaults: {\"long long *\": {dir: out}}\nparam_defaults: {sum: {dir: device}}\n" +
                          spec_with("  fakeSum: {class: async}\n"));
  INFO(by_name.output);
  CHECK(by_name.exit_code == 0);
  auto by_entry = generate(device + "type_defaults: {\"long long *\": {dir: out}}\n" +
                           spec_with("  fakeSum: {class: async, params: {sum: {dir: device}}}\n"));
  INFO(by_entry.output);
  CHECK(by_entry.exit_code == 0);
  auto twice = generate("type_defaults: {\"int *\": {dir: out}, \"int*\": {dir: in}}\n" + spec_with(""));
  INFO(twice.output);
  CHECK(twice.exit_code != 0);
  CHECK_THAT(twice.output, Catch::Contains("type_defaults names int* twice"));
}

TEST_CASE("a pattern may destroy handles of a kind its functions take") {
  std::string dir = rgpu::test::make_temp_dir("codegen-destroys");
  auto ok = generate(spec_with("", "  - {match: \"fakeStream*y\", class: async, destroys: stream}\n"), dir);
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  CHECK_THAT(rgpu::test::read_file(dir + "/out/cudart_server.cpp"), Catch::Contains("rgpu_ctx.handles.unbind("));

  auto r = generate(spec_with("", "  - {match: \"fakeSum\", class: sync, destroys: stream}\n"));
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("fakeSum: destroys 'stream' but takes no handle of that kind"));
}

TEST_CASE("a pattern may describe parameters of its functions, one that none of them has is rejected") {
  const std::string device = "pointer_default: device\n";
  // The pattern's rule applies: an output makes the async call wrong.
  auto applied = generate(device + spec_with("", "  - {match: \"fakeSu*\", class: async, params: {sum: {dir: out}}}\n"));
  INFO(applied.output);
  CHECK(applied.exit_code != 0);
  CHECK_THAT(applied.output, Catch::Contains("fakeSum is async but returns data through 'sum'; make it sync"));
  auto ok = generate(device + spec_with("", "  - {match: \"fakeSu*\", class: sync, params: {sum: {dir: out}}}\n"));
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  auto typo = generate(device + spec_with("", "  - {match: \"fakeSu*\", class: sync, params: {summ: {dir: out}}}\n"));
  INFO(typo.output);
  CHECK(typo.exit_code != 0);
  CHECK_THAT(typo.output, Catch::Contains("pattern 'fakeSu*' describes parameter 'summ', which none of the functions "
                                          "it matches has"));
}

TEST_CASE("scratch memory is allocated by the server for the call and never travels") {
  std::string dir = rgpu::test::make_temp_dir("codegen-scratch");
  auto ok = generate(spec_with("  fakeFill: {class: async, params: {devPtr: {dir: scratch, count: n}}}\n"), dir);
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);  // async: nothing comes back
  const std::string client = rgpu::test::read_file(dir + "/out/cudart_client.cpp");
  CHECK_THAT(client, Catch::Contains("rgpu_args.put<uint8_t>(devPtr != nullptr);"));
  CHECK_THAT(client, !Catch::Contains("put_in_bytes(rgpu_args, devPtr"));
  const std::string server = rgpu::test::read_file(dir + "/out/cudart_server.cpp");
  CHECK_THAT(server, Catch::Contains("rgpu_buf_devPtr.allocate(n)"));
  CHECK_THAT(server, !Catch::Contains("rgpu_buf_devPtr.write(rgpu_out)"));

  auto no_count = generate(spec_with("  fakeFill: {class: async, params: {devPtr: {dir: scratch}}}\n"));
  INFO(no_count.output);
  CHECK(no_count.exit_code != 0);
  CHECK_THAT(no_count.output, Catch::Contains("`dir: scratch` needs a `count`"));
  auto read_only = generate(spec_with("  fakeSum: {class: sync, params: {values: {dir: scratch, count: n}}}\n"));
  INFO(read_only.output);
  CHECK(read_only.exit_code != 0);
  CHECK_THAT(read_only.output, Catch::Contains("scratch memory is a writable buffer of values"));
}

TEST_CASE("a cached query keeps its answer per question, naming only described handles or handles by id") {
  const std::string answers = "answers: {described: [fakeStream_t]}\n";
  std::string dir = rgpu::test::make_temp_dir("codegen-cached");
  auto ok = generate(answers + spec_with("  fakeLookup: {class: sync, cached: true}\n"
                                             "  fakeStreamCreate: {class: async}\n"
                                             "  fakeStreamDestroy: {class: async, destroys: stream}\n"
                                             "  fakeFill: {class: async}\n"
                                             "  fakeSetValues: {class: async, forgets_answers: true}\n"), dir);
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  const std::string client = rgpu::test::read_file(dir + "/out/cudart_client.cpp");
  // The query asks its question first and stores a successful answer; a creation describes the new
  // handle, a mutable use changes its description, a destruction forgets it.
  CHECK_THAT(client, Catch::Contains("rgpu_answers().question(k_fakeLookup, rgpu_args.payload(), {}, rgpu_question)"));
  CHECK_THAT(client, Catch::Contains("rgpu_answers().store(rgpu_question, rgpu_call.reply())"));
  CHECK_THAT(client, Catch::Contains("rgpu_answers().describe(rgpu_id_stream, k_fakeStreamCreate, rgpu_args.payload(), "
                                     "rgpu_at_stream)"));
  CHECK_THAT(client, Catch::Contains("rgpu_answers().update(::rgpu::gen::handle_id(stream), k_fakeFill, "));
  CHECK_THAT(client, Catch::Contains("rgpu_answers().forget(::rgpu::gen::handle_id(stream))"));
  CHECK_THAT(client, !Catch::Contains("rgpu_answers().question(k_fakeFill"));
  CHECK_THAT(client, Catch::Contains("rgpu_answers().forget_answers();"));  // fakeSetValues: a mode changed

  auto no_answers = generate(spec_with("  fakeLookup: {class: sync, cached: true}\n"));
  INFO(no_answers.output);
  CHECK(no_answers.exit_code != 0);
  CHECK_THAT(no_answers.output, Catch::Contains("fakeLookup: `cached: true` needs the spec's `answers:`"));
  auto forgets = generate(spec_with("  fakeSetValues: {class: async, forgets_answers: true}\n"));
  INFO(forgets.output);
  CHECK(forgets.exit_code != 0);
  CHECK_THAT(forgets.output, Catch::Contains("fakeSetValues: `forgets_answers: true` is for a generated stub of a spec "
                                             "with `answers:`"));
  auto async = generate(answers + spec_with("  fakeFill: {class: async, cached: true}\n"));
  INFO(async.output);
  CHECK(async.exit_code != 0);
  CHECK_THAT(async.output, Catch::Contains("fakeFill: `cached: true` is for a sync call"));
  auto by_nothing = generate("answers: {by_id: []}\n" + spec_with("  fakeStreamSync: {class: sync, cached: true}\n"));
  INFO(by_nothing.output);
  CHECK(by_nothing.exit_code != 0);
  CHECK_THAT(by_nothing.output, Catch::Contains("fakeStreamSync: `cached: true` names handle 'stream' (fakeStream_t), "
                                                "which `answers:` neither describes nor names by id") &&
                                    Catch::Contains("fakeStreamSync: `cached: true` needs an output to keep"));
}
