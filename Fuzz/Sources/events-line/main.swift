import FuzzSupport

// libFuzzer's driver calls the target's LLVMFuzzerTestOneInput once per input.
runFuzzer { data, size in fuzzEventsLine(data, size) }
