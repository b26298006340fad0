#include "models/workload/workload.hpp"

#include "models/workload/inference_service.hpp"
#include "models/workload/training_job.hpp"

namespace dcsim::workload {

void Workloads::add(std::unique_ptr<TrainingJob> job) {
  training_at_.push_back(job.get());
  trainings_.push_back(job.get());
  service_at_.push_back(nullptr);
  all_.push_back(std::move(job));
}

void Workloads::add(std::unique_ptr<InferenceService> service) {
  training_at_.push_back(nullptr);
  service_at_.push_back(service.get());
  services_.push_back(service.get());
  all_.push_back(std::move(service));
}

} // namespace dcsim::workload
