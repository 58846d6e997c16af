import ArgumentParser
import Foundation
import HeraldApp

extension Herald {
    struct CacheCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cache", abstract: "The clip cache of rendered speech.",
            subcommands: [Warm.self, Stats.self, Clear.self])

        struct Warm: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "warm", abstract: "Render every sentence of cache.warm ahead of time.")
            @OptionGroup var options: GlobalOptions

            func run() async throws {
                let context = try await options.makeContext()
                let sentences = context.configuration.cache.warm
                guard !sentences.isEmpty else {
                    print("cache.warm is empty in the config: nothing to render")
                    return
                }
                let renderer = context.makeRenderer()
                let bar = ProgressBar(total: sentences.count)
                var rendered = 0
                for (index, sentence) in sentences.enumerated() {
                    do {
                        if try await renderer.warm(text: sentence, language: nil, voice: nil) { rendered += 1 }
                    } catch {
                        bar.finish()
                        throw fail("rendering \"\(sentence)\": \(error)")
                    }
                    bar.update(index + 1, label: sentence)
                }
                bar.finish()
                print("\(rendered) rendered, \(sentences.count - rendered) already cached")
            }
        }

        struct Stats: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "stats", abstract: "Entries, bytes and hit rate.")
            @OptionGroup var options: GlobalOptions
            @Flag(help: "Print as JSON.") var json = false

            func run() async throws {
                let context = try await options.makeContext()
                let totals = try await context.clipCache.totals()
                if json {
                    print(try jsonString(totals))
                } else {
                    print("entries: \(totals.entries)")
                    print("bytes:   \(totals.bytes) of \(context.configuration.cache.maxBytes)")
                    print("hits:    \(totals.hits), misses: \(totals.misses), hit rate \(String(format: "%.1f", totals.hitRate * 100))%")
                    print("folder:  \(context.configuration.cache.directory)")
                }
            }
        }

        struct Clear: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "clear", abstract: "Delete every cached clip.")
            @OptionGroup var options: GlobalOptions

            func run() async throws {
                let context = try await options.makeContext()
                let removed = try await context.clipCache.clear()
                print("removed \(removed) cached clip(s)")
            }
        }
    }
}
