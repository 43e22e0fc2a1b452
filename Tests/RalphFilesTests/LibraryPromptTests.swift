import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Library: prompts and their previews")
struct LibraryPromptTests {
    @Test("prompts are prompts/**/*.md, recursive, hidden files and directories skipped, sorted by path")
    func promptsListing() {
        let w = LibraryPresetWorkspace([
            "prompts/zeta.md": "Zeta prompt\n",
            "prompts/alpha.md": "\n\n   Alpha first line   \nsecond line\n",
            "prompts/sub/deep/x.md": "# Heading\n",
            "prompts/sub/notes.txt": "not markdown\n",
            "prompts/.hidden.md": "hidden\n",
            "prompts/.drafts/y.md": "hidden dir\n",
            "prompts/empty.md": "",
            "PROMPT.md": "outside prompts/\n",
        ])
        #expect(w.prompts == [
            PromptItem(path: "prompts/alpha.md", name: "alpha", preview: "Alpha first line"),
            PromptItem(path: "prompts/empty.md", name: "empty", preview: ""),
            PromptItem(path: "prompts/sub/deep/x.md", name: "x", preview: "# Heading"),
            PromptItem(path: "prompts/zeta.md", name: "zeta", preview: "Zeta prompt"),
        ])
    }

    @Test("a long prompt's preview is cut in the listing")
    func promptListingPreviewCut() {
        let w = LibraryPresetWorkspace(["prompts/long.md": String(repeating: "é", count: 30) + "\nmore\n"])
        #expect(w.prompts.map(\.preview) == [String(repeating: "é", count: 23) + "..."])
    }

    @Test("prompt files that are symbolic links are not listed")
    func promptSymlinksNotListed() throws {
        let w = LibraryPresetWorkspace(["prompts/real.md": "Real\n"])
        let outsideMd = w.outside.file("secret.md", "SECRET first line\n")
        w.link("prompts/out.md", to: outsideMd)
        w.link("prompts/alias.md", to: "real.md")
        w.link("prompts/outdir", to: w.outside.path)
        #expect(w.prompts.map(\.path) == ["prompts/real.md"])
    }

    @Test("preview is the first non-blank trimmed line, unchanged up to 50 bytes")
    func previewShort() {
        #expect(PresetLibrary.preview(ofText: "") == "")
        #expect(PresetLibrary.preview(ofText: "\n  \n\t\n") == "")
        #expect(PresetLibrary.preview(ofText: "\n\n  \t Hello world \t \nsecond") == "Hello world")
        #expect(PresetLibrary.preview(ofText: "\r\n\r\nWindows line\r\nnext") == "Windows line")
        let fifty = String(repeating: "a", count: 50)
        #expect(PresetLibrary.preview(ofText: fifty) == fifty)
        // 48 bytes of ASCII plus one 2-byte character: exactly 50 bytes, not cut.
        let fiftyBytes = String(repeating: "a", count: 48) + "é"
        #expect(PresetLibrary.preview(ofText: fiftyBytes) == fiftyBytes)
    }

    @Test("over 50 bytes the preview keeps at most 47 bytes, cut on a character boundary, plus ...")
    func previewCut() {
        #expect(PresetLibrary.preview(ofText: String(repeating: "a", count: 51)) == String(repeating: "a", count: 47) + "...")
        // 2-byte characters: 23 fit in 47 bytes (46), the 24th would make 48.
        #expect(PresetLibrary.preview(ofText: String(repeating: "é", count: 30)) == String(repeating: "é", count: 23) + "...")
        // 4-byte emoji: 11 fit (44 bytes).
        #expect(PresetLibrary.preview(ofText: String(repeating: "👍", count: 13)) == String(repeating: "👍", count: 11) + "...")
        // An emoji that would straddle byte 47 is left out whole.
        #expect(PresetLibrary.preview(ofText: String(repeating: "a", count: 45) + "👍👍") == String(repeating: "a", count: 45) + "...")
        // 3-byte CJK characters: 15 fit (45 bytes).
        #expect(PresetLibrary.preview(ofText: String(repeating: "漢", count: 20)) == String(repeating: "漢", count: 15) + "...")
    }

    @Test("a cut preview never splits a multi-scalar emoji and is valid text no longer than 50 bytes")
    func previewClusters() {
        let samples = [
            String(repeating: "a", count: 43) + "🏗️" + "bbbb",  // U+1F3D7 U+FE0F, 7 bytes across byte 47
            String(repeating: "a", count: 40) + "👩‍👩‍👧‍👦" + "tail",  // family ZWJ sequence, 25 bytes
            String(repeating: "🇫🇷", count: 10),  // flags, 8 bytes each
        ]
        for text in samples {
            let preview = PresetLibrary.preview(ofText: text)
            #expect(preview.hasSuffix("..."))
            #expect(preview.utf8.count <= 50)
            let kept = String(preview.dropLast(3))
            #expect(kept.utf8.count <= 47)
            #expect(text.hasPrefix(kept))
            // Whole characters only: the kept part is a prefix of the text's characters.
            #expect(Array(text.prefix(kept.count)) == Array(kept))
        }
        #expect(PresetLibrary.preview(ofText: String(repeating: "a", count: 43) + "🏗️" + "bbbb") == String(repeating: "a", count: 43) + "...")
        #expect(PresetLibrary.preview(ofText: String(repeating: "🇫🇷", count: 10)) == String(repeating: "🇫🇷", count: 5) + "...")
    }
}
