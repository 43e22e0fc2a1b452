import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding runs under the roots, and adding or removing them as their files come and go.
extension CatalogEngine {
    func rescan() {
        var found: [String: RunLocation] = [:]
        var containers: [String] = []
        var stateDirs: [String: (String, RunLocation.Layout, String)] = [:]
        var scans = configuration.roots.map { root in (root: root, candidates: RunDiscovery.workspaceCandidates(root: root)) }
        for extra in extraWorkspaces {
            scans.append((extra.root, RunDiscovery.workspaceCandidates(workspace: extra.workspace)))
        }
        for (root, candidates) in scans {
            containers.append(contentsOf: candidates.containers)
            for workspace in candidates.workspaces {
                for (stateDir, layout) in RunDiscovery.stateDirectories(of: workspace) {
                    stateDirs[stateDir] = (workspace, layout, root)
                    for file in RunDiscovery.runFiles(in: stateDir, layout: layout) {
                        let location = RunLocation(
                            file: file, stateDirectory: stateDir, workspace: workspace, root: root, layout: layout, idNamespace: configuration.idNamespace)
                        if found[location.id] == nil { found[location.id] = location }
                    }
                }
            }
        }
        // Anything created between listing a directory and watching it is caught by listing once more.
        if updateWatches(containers: containers, stateDirectories: Array(stateDirs.keys)) { needsRescan = true }
        for (path, info) in stateDirs where stateDirectories[path] == nil {
            stateDirectories[path] = StateDirectory(workspace: info.0, root: info.2, layout: info.1)
            dirtyStateDirectories.insert(path)
        }
        for id in tails.keys where found[id] == nil {
            removeRun(id)
        }
        for path in stateDirectories.keys where stateDirs[path] == nil {
            stateDirectories[path] = nil
        }
        let newLocations = found.values.filter { tails[$0.id] == nil }.sorted { $0.file < $1.file }
        var prepared: [String: Prepared] = [:]
        if !startup.ready {
            let started = Date()
            prepared = prepare(newLocations)
            startup.prepareSeconds += Date().timeIntervalSince(started)
            // Every workspace's liveness once, rather than once for each of its runs as they are added.
            probeLiveness(paths: Set(newLocations.map(\.stateDirectory)))
        }
        if newLocations.count > 1 {
            // Grown once, not doubled a dozen times over a large workspace (each step a copy, and garbage on the heap).
            tails.reserveCapacity(tails.count + newLocations.count)
            catalog.shared.withLock { $0.runs.reserveCapacity($0.runs.count + newLocations.count) }
        }
        var added: [String] = []
        for location in newLocations {
            // Stopping while a large workspace is first read: what is folded so far is kept (and indexed), the rest waits.
            if isStopping { break }
            addRun(location, prepared: prepared[location.id], announce: startup.ready)
            added.append(location.id)
        }
        if !startup.ready {
            // The first discovery announces its runs once all are in: what observers build from them is not mixed, on
            // this thread's heap, with what the catalog keeps for every run (so memory freed after it goes back whole).
            for id in added {
                if let snapshot = catalog.snapshot(id: id) { catalog.announce(.added(snapshot)) }
            }
        }
    }

    var isStopping: Bool { catalog.shared.withLock { $0.stopRequested } }

    func addRun(_ location: RunLocation, prepared: Prepared? = nil, announce: Bool = true) {
        // Fresh liveness first, so the run is announced with the right mode (a new run usually comes with a new
        // current-events pointer). The first discovery probed every workspace just before.
        if startup.ready { probeLiveness(paths: [location.stateDirectory]) }
        let tail = Tail(location: location, maxLineBytes: configuration.maxLineBytes)
        tails[location.id] = tail
        var snapshot = RunSnapshot(location: location)
        snapshot.fileStartedAt = RunSnapshot.dateFromFileName(location.fileName) ?? FileSystem.status(location.file)?.modified
        if let state = stateDirectories[location.stateDirectory] {
            snapshot.livenessBox = state.livenessBox
            snapshot.config = state.config
        }
        catalog.shared.withLock { s in
            snapshot.runConfig = s.runConfigs[location.id]
            s.runs[location.id] = snapshot
        }
        let restored: Bool
        if let scan = prepared?.scan {
            // Listed from its scan now; folded in the background once the catalog is ready (read on after that).
            adoptScan(tail, scan)
            foldsOutstanding += 1
            restored = false
        } else if let listing = prepared?.listing {
            restore(tail, listedFrom: listing)
            restored = true
        } else if let prepared, let entry = prepared.entry {
            restore(tail, from: entry, indexed: prepared.indexed, keepDetails: prepared.keepDetails)
            restored = prepared.fromIndex
        } else {
            restored = restoreFromIndex(tail)
        }
        let linesBefore = restored ? tail.known.lineCount : 0
        var outcome = readNew(tail, announce: false)
        // The first pass reads every file whole; later, a huge new file is read on in turns with the other runs.
        while outcome == .more, !startup.ready, !isStopping { outcome = readNew(tail, announce: false) }
        if outcome == .more { dirtyRuns.insert(location.id) }
        if !tail.known.needsIndexing { dropDetailsIfFinished(tail) }
        if !startup.ready {
            // (Progress is logged by the first pass's workers.)
            if restored { startup.restored += 1 } else if tail.awaitingFold { startup.scanned += 1 } else { startup.folded += 1 }
            startup.lines += tail.known.lineCount - linesBefore
        }
        if announce, let added = catalog.snapshot(id: location.id) {
            logger.debug("run added", metadata: ["id": "\(location.id)", "file": "\(location.file)", "lines": "\(added.summary.lineCount)"])
            catalog.announce(.added(added))
        }
    }

    func removeRun(_ id: String) {
        guard let tail = tails.removeValue(forKey: id) else { return }
        index?.remove(id: id)
        catalog.shared.withLock { _ = $0.runs.removeValue(forKey: id) }
        // Whoever waits for its fold is told once the run is gone.
        if tail.awaitingFold { forgetFold(id) }
        dirtyRuns.remove(id)
        logger.debug("run removed", metadata: ["id": "\(id)"])
        catalog.announce(.removed(id: id))
    }
}
