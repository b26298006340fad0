#include "models/workload/drains.hpp"

#include <memory>

namespace dcsim::workload {

void Drains::drain(hardware::GpuRange gpus, std::function<void()> done) {
  site_->set_draining(gpus, true);
  const std::vector<TrainingJob*> holders = site_->training_holders(gpus);
  auto finish = [this, gpus, done = std::move(done)] {
    done();
    site_->set_draining(gpus, false);
    site_->drained();
  };
  if (holders.empty()) {
    queue_->after(0, std::move(finish));
    return;
  }
  auto left = std::make_shared<int>(static_cast<int>(holders.size()));
  auto shared_finish = std::make_shared<std::function<void()>>(std::move(finish));
  for (auto* job : holders)
    job->request_stop([left, shared_finish] {
      if (--*left == 0) (*shared_finish)();
    });
}

} // namespace dcsim::workload
