import RalphMobilePresentation
import SwiftUI

/// Section 6: mode and the buttons that change it (only those the role and the run's state allow).
struct ModeControlCard: View {
    let section: ModeControlSection
    let runningAction: ControlAction?
    let onPause: () -> Void
    let onResume: () -> Void
    let onStop: () -> Void

    var body: some View {
        DetailCard("Mode & control", accessory: { SessionBadgeView(badge: section.mode) }) {
            NoteText(section.note)
            if let hold = section.holdLine {
                Text(hold).font(.subheadline.weight(.semibold)).foregroundStyle(Color(theme: .warning))
            }
            if let stop = section.stopLine {
                Text(stop).font(.subheadline).foregroundStyle(Color(theme: .warning))
            }
            HStack {
                if section.showsPause {
                    Button(action: onPause) {
                        Label(ControlAction.pause.title(running: runningAction), systemImage: "pause.fill")
                    }
                    .buttonStyle(.bordered)
                    .accessibilityLabel("Pause the run")
                }
                if section.showsResume {
                    Button(action: onResume) {
                        Label(ControlAction.resume.title(running: runningAction), systemImage: "play.fill")
                    }
                    .buttonStyle(.borderedProminent)
                    .tint(Color(theme: .accent))
                    .accessibilityLabel("Resume the run")
                }
                if section.showsStop {
                    Button(role: .destructive, action: onStop) {
                        Label(
                            runningAction == .stop ? ControlAction.stop.title(running: runningAction) : section.stopLabel,
                            systemImage: "stop.fill")
                    }
                    .buttonStyle(.bordered)
                    .tint(Color(theme: .danger))
                    .accessibilityLabel(section.stopForces ? "Force-stop the run" : "Stop the run at the end of this iteration")
                }
            }
            .disabled(runningAction != nil)
            if let reason = section.controlsOffReason {
                Text(reason).font(.subheadline.weight(.semibold)).foregroundStyle(Color(theme: .danger))
            }
            if let note = section.stopNote { NoteText(note) }
        }
    }
}

/// Section 10: steer, emit, export.
struct ActionsCard: View {
    let section: ActionsSection
    @Binding var steer: SteerDraft
    let runningAction: ControlAction?
    let onSteer: () -> Void
    let onEmit: () -> Void
    let onExport: () -> Void

    var body: some View {
        DetailCard("Actions") {
            if section.showsSteer {
                VStack(alignment: .leading, spacing: 6) {
                    Text("Steer").font(.subheadline.weight(.semibold))
                    TextField("Guidance", text: $steer.message, axis: .vertical)
                        .lineLimit(2...6)
                        .textFieldStyle(.roundedBorder)
                        .accessibilityHint("Next iteration: ralph adds it to its next prompt. Now: ralph steers the iteration in progress.")
                    Picker("When", selection: $steer.when) {
                        ForEach(SteerDraft.When.allCases, id: \.self) { when in Text(when.title).tag(when) }
                    }
                    .pickerStyle(.segmented)
                    if steer.showsProblems, let problem = steer.problem {
                        Text(problem).font(.footnote).foregroundStyle(Color(theme: .danger))
                    }
                    Button(ControlAction.steer.title(running: runningAction), action: onSteer)
                        .buttonStyle(.borderedProminent)
                        .tint(Color(theme: .accent))
                        .disabled(runningAction != nil)
                }
            }
            HStack {
                if section.showsEmit {
                    Button(action: onEmit) {
                        Label("Emit an event", systemImage: "paperplane")
                    }
                    .buttonStyle(.bordered)
                }
                if section.showsExport {
                    Button(action: onExport) {
                        Label("Export", systemImage: "square.and.arrow.up")
                    }
                    .buttonStyle(.bordered)
                    .accessibilityLabel("Export this session")
                }
            }
            if let note = section.note { NoteText(note) }
        }
    }
}

/// The question ralph waits on, with the answer field for those who may answer.
struct PendingQuestionView: View {
    let card: PendingQuestionCard
    @Binding var answer: AnswerDraft
    let runningAction: ControlAction?
    let onSend: () -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            HStack {
                Text("ralph is asking").font(.headline).accessibilityAddTraits(.isHeader)
                Spacer()
                if let hat = card.hat { HatBadgeView(hat: hat) }
            }
            Text(card.text).font(.body).foregroundStyle(Color(theme: .text))
            NoteText(card.detailText)
            if card.canAnswer {
                TextField("Your answer", text: $answer.text, axis: .vertical)
                    .lineLimit(2...6)
                    .textFieldStyle(.roundedBorder)
                if answer.showsProblems, let problem = answer.problem {
                    Text(problem).font(.footnote).foregroundStyle(Color(theme: .danger))
                }
                Button(ControlAction.answer.title(running: runningAction), action: onSend)
                    .buttonStyle(.borderedProminent)
                    .tint(Color(theme: .accent))
                    .disabled(runningAction != nil)
            } else if let note = card.note {
                NoteText(note)
            }
        }
        .padding()
        .frame(maxWidth: .infinity, alignment: .leading)
        .background(Color(theme: .warning).opacity(0.12), in: RoundedRectangle(cornerRadius: 12))
    }
}

/// Section 9: the hats of the run's workspace.
struct HatsReferenceCard: View {
    let section: HatsReferenceSection

    var body: some View {
        DetailCard("Hats") {
            if let note = section.note {
                NoteText(note)
            }
            ForEach(section.rows) { row in
                VStack(alignment: .leading, spacing: 4) {
                    HStack(spacing: 6) {
                        if !row.emoji.isEmpty { Text(row.emoji).accessibilityHidden(true) }
                        HatBadgeView(hat: row.name)
                        if let id = row.idText { Text(id).font(.caption.monospaced()).foregroundStyle(Color(theme: .secondaryText)) }
                        if row.isAtWork { SessionBadgeView(badge: .atWork) }
                    }
                    if !row.description.isEmpty { Text(row.description).font(.footnote) }
                    Text(row.topicsText).font(.caption.monospaced()).foregroundStyle(Color(theme: .secondaryText))
                    if let usage = row.usageText { NoteText(usage) }
                    if let sources = row.sourcesText { NoteText(sources) }
                }
                .accessibilityElement(children: .ignore)
                .accessibilityLabel(row.accessibilityLabel)
            }
        }
    }
}

#Preview("Controls, admin") {
    @Previewable @State var steer = SteerDraft()
    @Previewable @State var answer = AnswerDraft()
    ScrollView {
        VStack(spacing: 12) {
            if let question = SessionsFixtures.question {
                PendingQuestionView(card: question, answer: $answer, runningAction: nil, onSend: {})
            }
            ModeControlCard(section: SessionsFixtures.modeControl(), runningAction: nil, onPause: {}, onResume: {}, onStop: {})
            ActionsCard(section: SessionsFixtures.actions(), steer: $steer, runningAction: nil, onSteer: {}, onEmit: {}, onExport: {})
            HatsReferenceCard(section: SessionsFixtures.hatsReference)
        }
        .padding()
    }
    .background(Color(theme: .background))
}

#Preview("Controls, operator") {
    @Previewable @State var steer = SteerDraft()
    ScrollView {
        VStack(spacing: 12) {
            ModeControlCard(
                section: SessionsFixtures.modeControl(role: .operator), runningAction: .pause, onPause: {}, onResume: {}, onStop: {})
            ActionsCard(
                section: SessionsFixtures.actions(role: .viewer), steer: $steer, runningAction: nil, onSteer: {}, onEmit: {}, onExport: {})
        }
        .padding()
    }
    .background(Color(theme: .background))
}
