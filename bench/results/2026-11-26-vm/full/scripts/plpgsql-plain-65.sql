SELECT plain(65, :client_id);
