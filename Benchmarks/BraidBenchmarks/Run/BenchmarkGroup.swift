/// The groups of `make bench`, in the order a whole run measures them.
public enum BenchmarkGroup: String, CaseIterable, Sendable {
    case evaluation, fleet, gateway, kafka, plan, redis, scale, soak, worker

    func run(_ context: BenchmarkContext) async throws {
        switch self {
        case .evaluation: try await EvaluationGroup(context: context).run()
        case .fleet: try await FleetGroup(context: context).run()
        case .gateway: try await GatewayGroup(context: context).run()
        case .kafka: try await KafkaGroup(context: context).run()
        case .plan: PlanBenchmark.run()
        case .redis: try await RedisGroup(context: context).run()
        case .scale: try await ScaleGroup(context: context).run()
        case .soak: try await SoakGroup(context: context).run()
        case .worker: try await WorkerGroup(context: context).run()
        }
    }
}
