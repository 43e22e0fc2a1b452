// The servers, temporary directories and polling helpers shared with the client tests.
@_exported import TestSupport
